// Mostly asleep: sleepy_wait sleeps 400 ms, busy_work burns 100 ms of CPU. The sleep must
// last as long as asked even when the profiler's wall-clock signals arrive.
#include <time.h>

#include <cstdio>

#include "spin.h"

extern "C" {
__attribute__((noinline)) void sleepy_wait() {
  timespec t{0, 400 * 1000 * 1000};
  while (nanosleep(&t, &t) != 0) {
  }
}
__attribute__((noinline)) void busy_work() { SPIN_FOR_MS(100); }
}

int main() {
  timespec a{};
  clock_gettime(CLOCK_MONOTONIC, &a);
  sleepy_wait();
  busy_work();
  timespec b{};
  clock_gettime(CLOCK_MONOTONIC, &b);
  std::printf("elapsed_ms %ld\n", (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000);
  return 0;
}
