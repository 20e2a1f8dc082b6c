// A progress line in a function inlined in two places: into main, in a branch that runs
// only with more arguments, and into the loop that does the work. GCC puts main in
// .text.startup, which the linker places before .text, so the copy that never runs has
// the lower address. --progress on the line counts every copy.
//   inlined_progress [ITERATIONS [UNUSED...]]
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

volatile uint64_t g_done = 0;

inline void one_done() {
  g_done = g_done + 1;  // COUNTED
}

// A linear congruential step per round: work the optimizer cannot fold away.
__attribute__((noinline)) uint64_t work(uint64_t n) {
  uint64_t x = n;
  for (uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

__attribute__((noinline)) uint64_t loop(long iterations) {
  uint64_t sum = 0;
  for (long i = 0; i < iterations; ++i) {
    // The volatile read keeps GCC from hoisting the call out of the loop: it finds work()
    // const, and then ran it once and the loop in 2 ms, too short for an experiment.
    sum += work(40000 + (g_done & 1));  // WORK_LINE
    one_done();
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 3000;
  if (argc > 2) {
    for (long i = 0; i < iterations; ++i) one_done();
  }
  const uint64_t sum = loop(iterations);
  std::printf("%llu %llu\n", static_cast<unsigned long long>(sum & 0xff),
              static_cast<unsigned long long>(g_done));
  return 0;
}
