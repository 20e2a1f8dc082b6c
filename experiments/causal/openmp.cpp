// (g) An OpenMP loop with unequal work: per round a parallel for over two iterations on
// two threads, iteration 0 the hot line (2 units), iteration 1 a cold line (1 unit);
// libgomp's barrier joins them; a progress point per round. Same shape as fork-join
// (s up to 1/2, then 1/2). libgomp waits with inline futex system calls, which
// causal-run catches with Syscall User Dispatch (docs/causal.md).
#include <omp.h>

#include "workload.h"

int main(int argc, char** argv) {
  const cxp::Args a = cxp::parse(argc, argv, 1500);
  const uint64_t hot = a.hot(2), cold = a.cold(1);
  uint64_t total = 0;
  const double t0 = cxp::now_s();
  for (long r = 0; r < a.items; ++r) {
#pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : total)
    for (int i = 0; i < 2; ++i) {
      uint64_t x = 0;
      if (i == 0) {
        CEXP_SPIN(x, hot);  // HOT
      } else {
        CEXP_SPIN(x, cold);
      }
      total += x;
    }
    COZ_PROGRESS_NAMED("round");
  }
  cxp::report(t0, a.items, total);
  return 0;
}
