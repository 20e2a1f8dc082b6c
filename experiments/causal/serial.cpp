// (a) Serial split: each item runs the hot line (2 units) then a cold line (1 unit), one
// thread, a progress point per item. Speeding the hot line up by s speeds the program up
// by 2s/3 (Amdahl).
#include "workload.h"

int main(int argc, char** argv) {
  const cxp::Args a = cxp::parse(argc, argv, 1500);
  const uint64_t hot = a.hot(2), cold = a.cold(1);
  uint64_t x = 0;
  const double t0 = cxp::now_s();
  for (long i = 0; i < a.items; ++i) {
    CEXP_SPIN(x, hot);  // HOT
    CEXP_SPIN(x, cold);
    COZ_PROGRESS_NAMED("item");
  }
  cxp::report(t0, a.items, x);
  return 0;
}
