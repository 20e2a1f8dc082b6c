// An OpenMP library loaded with dlopen by openmp_dlopen.cpp: libgomp arrives after the
// causal runtime started. The calling thread (the team's master) runs the short
// iteration, so it is the one that waits in libgomp's barrier.
#include <cstdint>

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

extern "C" __attribute__((visibility("default"))) uint64_t plugin_rounds(long n) {
  constexpr uint64_t kUnit = 100000;
  uint64_t total = 0;
  for (long r = 0; r < n; ++r) {
#pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : total)
    for (int i = 0; i < 2; ++i) {
      total += work(i == 0 ? kUnit : 2 * kUnit);
    }
  }
  return total;
}
