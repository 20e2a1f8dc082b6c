// A serial loop with known structure: per iteration, line A does two units of work and
// line B one, then one progress point. Speeding A up by s saves 2/3 s of the time per
// iteration, B 1/3 s: at s = 50%, about 33% and 17%. Built also without the progress
// point (CPROF_NO_PROGRESS) and without debug information, for the error tests, and with
// the loop in a thread that blocks every signal (CPROF_MASKED_THREAD), as xz's workers do,
// and with the loop in two forked children that outlive the program (CPROF_FORK_CHILDREN).
// START_MS: first a start-up of that much CPU time that reaches no progress point;
// IDLE_MS: at the end, that long asleep, as a server idles before it is stopped.
// Built with CPROF_STOP_ON_TERM, it catches SIGTERM and SIGINT, stops its loop and exits
// 0, as a program that cleans up on ^C does.
//   serial [ITERATIONS [START_MS [IDLE_MS]]]      (ITERATIONS "-": read from stdin)
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <time.h>

#include "causal/progress.h"

namespace {

constexpr uint64_t kUnit = 150000;

// Its name on a line of its own, without code (as zstd writes its functions): the line the
// report's function table names it by.
// clang-format off
__attribute__((noinline)) uint64_t
spin(uint64_t n)  // SPIN_DEFINED
{
  // clang-format on
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) {
    x += i * i;
    asm volatile("" : "+r"(x));
  }
  return x;
}

__attribute__((noinline)) void start_up(long ms) {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  const int64_t end = now.tv_sec * 1000000000ll + now.tv_nsec + ms * 1000000ll;
  while (now.tv_sec * 1000000000ll + now.tv_nsec < end) {
    spin(10000);  // START_UP_LINE
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  }
}

volatile std::sig_atomic_t stop = 0;

uint64_t loop(long iterations) {
  uint64_t sum = 0;
  for (long i = 0; i < iterations && stop == 0; ++i) {
    sum += spin(2 * kUnit);  // LINE_A
    sum += spin(kUnit);      // LINE_B
#ifndef CPROF_NO_PROGRESS
    CAUSAL_PROGRESS;
#endif
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = argc > 1 ? std::atol(argv[1]) : 4000;
  if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '\0') {  // "-": read from stdin
    if (std::scanf("%ld", &iterations) != 1) iterations = 0;
    std::printf("iterations from stdin: %ld\n", iterations);
  }
  if (argc > 2) start_up(std::atol(argv[2]));
#ifdef CPROF_STOP_ON_TERM
  std::signal(SIGTERM, [](int) { stop = 1; });
  std::signal(SIGINT, [](int) { stop = 1; });
#endif
#ifdef CPROF_FORK_CHILDREN
  for (int child = 0; child < 2; ++child) {
    if (fork() == 0) {
      std::printf("%llu\n", static_cast<unsigned long long>(loop(iterations) & 0xff));
      return 0;
    }
  }
  return 0;  // at once: the children do the work
#endif
#ifdef CPROF_MASKED_THREAD
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, nullptr);  // the worker inherits it
  uint64_t sum = 0;
  std::thread([&] { sum = loop(iterations); }).join();
#else
  const uint64_t sum = loop(iterations);
#endif
  std::printf("%llu\n", static_cast<unsigned long long>(sum & 0xff));
  if (argc > 3) usleep(static_cast<useconds_t>(std::atol(argv[3]) * 1000));
  return 0;
}
