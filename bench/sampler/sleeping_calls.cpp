// The cost of a sleeping call that does not sleep, under `sample-run --clock wall`: there
// the interposers of poll, select, nanosleep and the rest hold the sampling signal for the
// call (sampler/runtime/sleep_interpose.cpp), two more system calls and a saved register
// set each; an event loop whose events are always ready pays them on every turn.
//
//   cprof-bench-sleeping-calls [CALLS]   (default 2,000,000)
//
// poll(fd, 1, 100) on a pipe that always holds a byte: it returns at once, never sleeps.
// Prints "calls=N ns_per_call=X" (wall time of the loop over N).
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {

double now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 2'000'000;
  int fds[2];
  if (pipe(fds) != 0 || write(fds[1], "x", 1) != 1) {
    std::perror("pipe");
    return 1;
  }
  pollfd p{fds[0], POLLIN, 0};
  long ready = 0;
  const double start = now_ns();
  for (long i = 0; i < calls; ++i) ready += poll(&p, 1, 100);
  const double took = now_ns() - start;
  if (ready != calls) {
    std::fprintf(stderr, "poll was not ready every time (%ld of %ld)\n", ready, calls);
    return 1;
  }
  std::printf("calls=%ld ns_per_call=%.1f\n", calls, took / static_cast<double>(calls));
  return 0;
}
