// (c) forkjoin_pthread.cpp over C++20 std::barrier (libstdc++ waits with futex calls
// compiled into this binary, through syscall()). Same prediction: s up to 1/2, then 1/2.
#include <barrier>
#include <thread>

#include "workload.h"

int main(int argc, char** argv) {
  const cxp::Args a = cxp::parse(argc, argv, 1500);
  const uint64_t hot = a.hot(2), cold = a.cold(1);
  std::barrier<> barrier(2);
  uint64_t y = 0;
  std::thread other([&] {
    uint64_t acc = 0;
    for (long i = 0; i < a.items; ++i) {
      CEXP_SPIN(acc, cold);
      barrier.arrive_and_wait();
    }
    y = acc;
  });
  uint64_t x = 0;
  const double t0 = cxp::now_s();
  for (long i = 0; i < a.items; ++i) {
    CEXP_SPIN(x, hot);  // HOT
    barrier.arrive_and_wait();
    COZ_PROGRESS_NAMED("round");
  }
  other.join();
  cxp::report(t0, a.items, x + y);
  return 0;
}
