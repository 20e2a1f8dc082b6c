#pragma once
// A GPU runtime's timestamp domain -> host CLOCK_MONOTONIC ns. GPU runtimes report device
// timestamps in a clock of their own (HSA's system clock, CUPTI's timestamp); neither is
// promised to be CLOCK_MONOTONIC, so each tool reads the runtime's clock between two
// CLOCK_MONOTONIC reads and keeps the narrowest bracket. The clocks may drift apart:
// callers recalibrate now and then (every second).

#include <cmath>
#include <cstdint>
#include <optional>

#include "gpu/common/results_file.h"

namespace cprof::gpu {

struct ClockMap {
  uint64_t ticks = 0;    // a runtime timestamp ...
  uint64_t host_ns = 0;  // ... and CLOCK_MONOTONIC at the same moment
  double ns_per_tick = 1.0;

  uint64_t to_host(uint64_t t) const {
    const double d = (static_cast<double>(t) - static_cast<double>(ticks)) * ns_per_tick;
    const double h = static_cast<double>(host_ns) + d;
    return h <= 0 ? 0 : static_cast<uint64_t>(std::llround(h));
  }
};

// Reads the runtime's clock `tries` times with `read(uint64_t&) -> bool` bracketed by
// `host()` (CLOCK_MONOTONIC ns) and keeps the reading with the narrowest bracket, placed
// at the bracket's middle. nullopt when the first read fails.
template <typename Read, typename Host>
std::optional<ClockMap> calibrate_clock(Read&& read, double ns_per_tick, Host&& host,
                                        int tries = 5) {
  std::optional<ClockMap> best;
  uint64_t best_width = ~uint64_t{0};
  for (int i = 0; i < tries; ++i) {
    const uint64_t before = host();
    uint64_t ticks = 0;
    if (!read(ticks)) break;
    const uint64_t after = host();
    if (after - before < best_width) {
      best_width = after - before;
      best = ClockMap{ticks, before + (after - before) / 2, ns_per_tick};
    }
  }
  return best;
}

template <typename Read>
std::optional<ClockMap> calibrate_clock(Read&& read, double ns_per_tick) {
  return calibrate_clock(read, ns_per_tick, [] { return monotonic_ns(); });
}

}  // namespace cprof::gpu
