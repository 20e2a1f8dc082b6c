#pragma once
// The causal part of `--format chrome`, per process: a track of experiments (one slice per
// experiment: location and speedup, with its numbers as args), each progress point's rate
// during each experiment as a counter track, and the timed regions' summaries as instant
// events at the time they were written; and each region call (region_spans records) as
// a slice on a track beside its thread's (chrome_region_spans).

#include <cstdint>
#include <functional>

namespace cprof::report {

class JsonWriter;
struct ProcessProfile;

// Track ids of the causal tracks: above any Linux tid (pid_max is at most 2^22).
inline constexpr int64_t kExperimentsTid = 1'000'000'001;
inline constexpr int64_t kRegionsTid = 1'000'000'002;
// Region-span tracks: this plus the thread's position among the threads with spans.
inline constexpr int64_t kRegionSpansTid0 = 1'000'100'000;

// `us` turns the process's CLOCK_MONOTONIC ns into the trace's microseconds.
void chrome_causal_events(JsonWriter& j, const ProcessProfile& p, uint64_t pid,
                          const std::function<double(uint64_t)>& us);

// The process's region calls as "X" slices named by their point, at most max_spans of
// them (the earliest; a note on the summary track says when some were left out). Each
// thread's calls go on a track of their own, "NAME (TID) regions", next to the thread's:
// its flame chart's slices cut across the calls' begins and ends, and trace viewers draw
// only slices that nest on one track. args.tid is the thread's id.
void chrome_region_spans(JsonWriter& j, const ProcessProfile& p, uint64_t pid, uint64_t max_spans,
                         const std::function<double(uint64_t)>& us);
// Region calls over all of a report's processes (for the event budget).
uint64_t region_span_count(const ProcessProfile& p);

}  // namespace cprof::report
