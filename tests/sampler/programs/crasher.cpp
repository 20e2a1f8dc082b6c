// Works for a while in doomed_work, then ends as argv[1] says: kill (SIGKILL, which no
// runtime can catch), or exit N. Output is flushed first, so the test can compare it.
// (Crashes and abort(): signal_ending.cpp.)
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
  if (std::strcmp(how, "kill") == 0) {
    kill(getpid(), SIGKILL);
  }
  return argc > 2 ? std::atoi(argv[2]) : 0;
}
