#pragma once
// Burns CPU time of the calling thread for `ms` milliseconds, measured on its own CPU
// clock, inside whichever function inlines it.
#include <time.h>

#include <cstdint>

inline uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

#define SPIN_FOR_MS(ms)                                                      \
  do {                                                                       \
    const uint64_t spin_end_ = thread_cpu_ns() + (ms) * 1000000ull;          \
    volatile uint64_t spin_x_ = 0;                                           \
    while (thread_cpu_ns() < spin_end_) {                                    \
      for (int spin_i_ = 0; spin_i_ < 1000; ++spin_i_) spin_x_ = spin_x_ + spin_i_; \
    }                                                                        \
  } while (0)
