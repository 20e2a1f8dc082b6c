// Threads that block in every way the runtime interposes: a mutex and condition
// variable queue, a C++20 barrier and latch and atomic wait (futexes through syscall()),
// joins and sleeps; each item is a latency point (CAUSAL_BEGIN/END, a timed region) and
// a throughput point. It must run to the end under causal-run with the same output.
//   threads [ITEMS]
#include <atomic>
#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <latch>
#include <mutex>
#include <thread>
#include <vector>

#include "causal/progress.h"

namespace {

__attribute__((noinline)) uint64_t work(uint64_t n) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) {
    x += i * i;
    asm volatile("" : "+r"(x));
  }
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  const int items = argc > 1 ? std::atoi(argv[1]) : 4000;
  constexpr int kWorkers = 3;
  std::mutex m;
  std::condition_variable cv;
  std::deque<int> queue;
  bool done = false;
  std::atomic<uint64_t> total{0};
  std::barrier sync(kWorkers);
  std::latch started(kWorkers);
  std::atomic<int> flag{0};

  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      started.count_down();
      sync.arrive_and_wait();
      for (;;) {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return done || !queue.empty(); });
        if (queue.empty()) return;
        queue.pop_front();
        lock.unlock();
        CAUSAL_BEGIN("work");  // a timed region: begin and end on one thread
        total += work(20000);  // WORK
        CAUSAL_END("work");
        CAUSAL_END("item");
        CAUSAL_PROGRESS_NAMED("items");
      }
    });
  }
  started.wait();
  std::thread waiter([&] { flag.wait(0); });
  flag = 1;
  flag.notify_all();
  waiter.join();
  for (int i = 0; i < items; ++i) {
    CAUSAL_BEGIN("item");
    {
      std::lock_guard lock(m);
      queue.push_back(i);
    }
    cv.notify_one();
    if (i % 500 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  {
    std::lock_guard lock(m);
    done = true;
  }
  cv.notify_all();
  for (auto& t : workers) t.join();
  std::printf("%d items\n", items);
  return 0;
}
