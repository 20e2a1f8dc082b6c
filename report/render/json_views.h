#pragma once
// The JSON report's views beside the flat profile (json_views.cpp): per thread, process
// and rank, the counters per function, the call tree, and a process's metrics and
// sampling coverage.
// Internal to render/.

#include "report/render/json_writer.h"
#include "report/render/render.h"

namespace cprof::report {

// {"mean", "min", "max", "stddev"} of a row's spread over threads, processes or runs.
void json_spread(JsonWriter& j, const RunningStats& s);
// Writes "metrics": {...} into the open process object.
void json_process_metrics(JsonWriter& j, const ProcessMetrics& m);
// Writes "unsampled_cpu_ns", "unsampled_threads": [...] and "unsampled_short_threads":
// {...} into the open process object; zeros and [] when nothing was flagged (or `c` is null).
void json_process_coverage(JsonWriter& j, const ProcessProfile& p, const SamplingCoverage* c);
// Writes "by_thread", "by_process", "by_rank", "counters" and (when built) "tree" into
// the open "profile" object.
void json_profile_views(JsonWriter& j, const Report& r, const RenderOptions& o);

}  // namespace cprof::report
