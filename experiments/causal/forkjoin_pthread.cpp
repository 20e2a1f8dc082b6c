// (b) Fork-join with unequal threads over a pthread barrier: per round the main thread
// runs the hot line (2 units) and a second thread a cold line (1 unit); both meet at a
// pthread_barrier_t; a progress point per round. A round takes max(2(1-s), 1) units: the
// hot line s faster speeds the program up by s up to s = 1/2, then by 1/2.
#include <pthread.h>

#include <thread>

#include "workload.h"

int main(int argc, char** argv) {
  const cxp::Args a = cxp::parse(argc, argv, 1500);
  const uint64_t hot = a.hot(2), cold = a.cold(1);
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, nullptr, 2);
  uint64_t y = 0;
  std::thread other([&] {
    uint64_t acc = 0;
    for (long i = 0; i < a.items; ++i) {
      CEXP_SPIN(acc, cold);
      pthread_barrier_wait(&barrier);
    }
    y = acc;
  });
  uint64_t x = 0;
  const double t0 = cxp::now_s();
  for (long i = 0; i < a.items; ++i) {
    CEXP_SPIN(x, hot);  // HOT
    pthread_barrier_wait(&barrier);
    COZ_PROGRESS_NAMED("round");
  }
  other.join();
  cxp::report(t0, a.items, x + y);
  pthread_barrier_destroy(&barrier);
  return 0;
}
