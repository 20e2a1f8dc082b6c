// Counts the SIGCHLD signals it receives and, at the end, asks wait() for any child: it
// starts none, so it must see no SIGCHLD and ECHILD, with or without the profiler (whose
// runtime, in an exec'd image, starts causal-run to resolve locations).
//   sigchld_watch [ITERATIONS]
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "causal/progress.h"

namespace {
volatile sig_atomic_t g_sigchld = 0;
void on_sigchld(int /*sig*/) { g_sigchld = g_sigchld + 1; }
}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGCHLD, on_sigchld);
  const long iterations = argc > 1 ? std::atol(argv[1]) : 3000;
  uint64_t x = 0;
  for (long i = 0; i < iterations; ++i) {
    for (uint64_t j = 0; j < 300000; ++j) {
      x += j * j;  // WATCH_WORK
      asm volatile("" : "+r"(x));
    }
    CAUSAL_PROGRESS;
  }
  const pid_t any = wait(nullptr);
  std::printf("sigchld=%d wait=%s x=%llu\n", static_cast<int>(g_sigchld),
              any < 0 && errno == ECHILD ? "ECHILD" : "a child", static_cast<unsigned long long>(x & 0xff));
  return 0;
}
