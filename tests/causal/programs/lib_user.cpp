// Spends most of its time in lib_work() of libcausal_work.so (a library the program loads
// at start), a little in its own loop, one progress point per iteration.
//   lib_user [ITERATIONS]
//   lib_user --library-thread ROUNDS: all the work on a thread the library starts
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "causal/progress.h"

extern "C" uint64_t lib_work(uint64_t n);
extern "C" uint64_t lib_work_on_own_thread(uint64_t rounds);

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "--library-thread") == 0) {
    std::printf("%llu\n", static_cast<unsigned long long>(lib_work_on_own_thread(std::atol(argv[2]))));
    return 0;
  }
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
