// Works for a while in doomed_work, then ends as argv[1] says: segv, abort, kill, or
// exit N. Output is flushed first, so the test can compare it.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "spin.h"

extern "C" __attribute__((noinline)) void doomed_work() { SPIN_FOR_MS(400); }

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "exit";
  std::printf("before %s\n", how);
  std::fflush(stdout);
  doomed_work();
  if (std::strcmp(how, "segv") == 0) {
    volatile int* p = nullptr;
    *p = 1;
  } else if (std::strcmp(how, "abort") == 0) {
    std::abort();
  } else if (std::strcmp(how, "kill") == 0) {
    kill(getpid(), SIGKILL);
  }
  return argc > 2 ? std::atoi(argv[2]) : 0;
}
