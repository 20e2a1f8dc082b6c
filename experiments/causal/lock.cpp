// (e) Lock contention: two threads take items from a shared counter; each item runs the
// hot line (1 unit) inside a std::mutex and a cold line (1/2 unit) outside, then counts a
// progress point. While the critical section is the longer part the lock bounds the
// throughput (1 - s units per item); below 1/2 unit the threads' own work does
// ((1 - s + 1/2) / 2 units per item).
#include <atomic>
#include <mutex>
#include <thread>

#include "workload.h"

int main(int argc, char** argv) {
  const cxp::Args a = cxp::parse(argc, argv, 3000);
  const uint64_t hot = a.hot(1), cold = a.cold(0.5);
  std::mutex m;
  std::atomic<long> next{0};
  uint64_t sums[2] = {0, 0};
  auto worker = [&](int w) {
    uint64_t acc = 0;
    while (next.fetch_add(1, std::memory_order_relaxed) < a.items) {
      {
        std::lock_guard lock(m);
        CEXP_SPIN(acc, hot);  // HOT
      }
      CEXP_SPIN(acc, cold);
      COZ_PROGRESS_NAMED("item");
    }
    sums[w] = acc;
  };
  const double t0 = cxp::now_s();
  std::thread other(worker, 1);
  worker(0);
  other.join();
  cxp::report(t0, a.items, sums[0] + sums[1]);
  return 0;
}
