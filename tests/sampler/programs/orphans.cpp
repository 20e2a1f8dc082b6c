// Leaves its children behind: forks CHILDREN children that outlive it and returns 4 at
// once, without waiting for them. Each child prints its pid and lets go of stdout and
// stderr (as a daemon does: whoever reads the program's output is not held up), sleeps
// LINGER_MS of wall time, then runs orphan_work (300 ms of CPU); the parent runs
// parent_work (30 ms).
//   orphans [CHILDREN [LINGER_MS]]
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "spin.h"

extern "C" {
__attribute__((noinline)) void parent_work() { SPIN_FOR_MS(30); }
__attribute__((noinline)) void orphan_work() { SPIN_FOR_MS(300); }
}

int main(int argc, char** argv) {
  const int children = argc > 1 ? std::atoi(argv[1]) : 2;
  const long linger_ms = argc > 2 ? std::atol(argv[2]) : 300;
  for (int i = 0; i < children; ++i) {
    if (fork() == 0) {
      std::printf("child %d\n", static_cast<int>(getpid()));
      std::fflush(stdout);
      const int null_fd = open("/dev/null", O_WRONLY);
      dup2(null_fd, 1);
      dup2(null_fd, 2);
      usleep(static_cast<useconds_t>(linger_ms * 1000));
      orphan_work();
      return 0;
    }
  }
  parent_work();
  return 4;
}
