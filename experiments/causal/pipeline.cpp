// (d) Producer-consumer pipeline: the main thread produces items (a cold line, 1 unit
// each) into a bounded queue (mutex + condition variables, 8 slots); a consumer thread
// runs the hot line (2 units) per item and counts a progress point. Throughput follows
// the slower stage: max(2(1-s), 1) units per item, as for fork-join.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "workload.h"

int main(int argc, char** argv) {
  const cxp::Args a = cxp::parse(argc, argv, 1500);
  const uint64_t hot = a.hot(2), cold = a.cold(1);
  constexpr size_t kSlots = 8;
  std::mutex m;
  std::condition_variable not_empty, not_full;
  std::deque<uint64_t> queue;
  uint64_t y = 0;
  std::thread consumer([&] {
    uint64_t acc = 0;
    for (long i = 0; i < a.items; ++i) {
      uint64_t item = 0;
      {
        std::unique_lock lock(m);
        not_empty.wait(lock, [&] { return !queue.empty(); });
        item = queue.front();
        queue.pop_front();
      }
      not_full.notify_one();
      acc += item;
      CEXP_SPIN(acc, hot);  // HOT
      COZ_PROGRESS_NAMED("item");
    }
    y = acc;
  });
  uint64_t x = 0;
  const double t0 = cxp::now_s();
  for (long i = 0; i < a.items; ++i) {
    CEXP_SPIN(x, cold);
    {
      std::unique_lock lock(m);
      not_full.wait(lock, [&] { return queue.size() < kSlots; });
      queue.push_back(x & 0xff);
    }
    not_empty.notify_one();
  }
  consumer.join();
  cxp::report(t0, a.items, x + y);
  return 0;
}
