#pragma once
// The JSON report's views beside the flat profile (json_views.cpp): per thread, process
// and rank, the counters per function, the call tree, and a process's metrics.
// Internal to render/.

#include "report/render/json_writer.h"
#include "report/render/render.h"

namespace cprof::report {

// {"mean", "min", "max", "stddev"} of a row's spread over threads, processes or runs.
void json_spread(JsonWriter& j, const RunningStats& s);
// Writes "metrics": {...} into the open process object.
void json_process_metrics(JsonWriter& j, const ProcessMetrics& m);
// Writes "by_thread", "by_process", "by_rank", "counters" and (when built) "tree" into
// the open "profile" object.
void json_profile_views(JsonWriter& j, const Report& r, const RenderOptions& o);

}  // namespace cprof::report
