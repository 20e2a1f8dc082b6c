// Spends most of its time in lib_work() of libcausal_work.so (a library the program loads
// at start), a little in its own loop, one progress point per iteration.
//   lib_user [ITERATIONS]
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "causal/progress.h"

extern "C" uint64_t lib_work(uint64_t n);

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 4000;
  uint64_t sum = 0;
  for (long i = 0; i < iterations; ++i) {
    sum += lib_work(300000);
    for (uint64_t j = 0; j < 30000; ++j) {
      sum += j ^ (sum >> 3);  // OWN_WORK
      asm volatile("" : "+r"(sum));
    }
    CAUSAL_PROGRESS;
  }
  std::printf("%llu\n", static_cast<unsigned long long>(sum & 0xff));
  return 0;
}
