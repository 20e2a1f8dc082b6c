#pragma once
// CLOCK_MONOTONIC in nanoseconds: the time base of every record (docs/results-format.md).
// Async-signal-safe (clock_gettime is).

#include <time.h>

#include <cstdint>

namespace cprof {

inline uint64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace cprof
