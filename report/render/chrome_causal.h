#pragma once
// The causal part of `--format chrome`, per process: a track of experiments (one slice per
// experiment: location and speedup, with its numbers as args), each progress point's rate
// during each experiment as a counter track, and the timed regions' summaries as instant
// events at the time they were written. Per-call region spans need per-call times, which
// the results format does not record (a region record is a summary written at exit).

#include <cstdint>
#include <functional>

namespace cprof::report {

class JsonWriter;
struct ProcessProfile;

// Track ids of the causal tracks: above any Linux tid (pid_max is at most 2^22).
inline constexpr int64_t kExperimentsTid = 1'000'000'001;
inline constexpr int64_t kRegionsTid = 1'000'000'002;

// `us` turns the process's CLOCK_MONOTONIC ns into the trace's microseconds.
void chrome_causal_events(JsonWriter& j, const ProcessProfile& p, uint64_t pid,
                          const std::function<double(uint64_t)>& us);

}  // namespace cprof::report
