// (f) CPU work mixed with sleeping: one thread, per item the hot line (2 units, ~0.7 ms)
// then a 1 ms nanosleep, a progress point. The hot line s faster speeds the program up by
// s times its share of the wall time (about s/2 on an idle machine).
#include <time.h>

#include "workload.h"

int main(int argc, char** argv) {
  const cxp::Args a = cxp::parse(argc, argv, 1000);
  const uint64_t hot = a.hot(2);
  uint64_t x = 0;
  const double t0 = cxp::now_s();
  for (long i = 0; i < a.items; ++i) {
    CEXP_SPIN(x, hot);  // HOT
    const timespec pause{0, 1000000};
    nanosleep(&pause, nullptr);
    COZ_PROGRESS_NAMED("item");
  }
  cxp::report(t0, a.items, x);
  return 0;
}
