#pragma once
// The causal section of the JSON report (docs/report.md). Internal to render/.

#include "report/render/json_writer.h"

namespace cprof::report {

struct Report;

// "causal": {experiments, predictions: [{location, progress_point, points: [{speedup,
// program_speedup, ci_low, ci_high, experiments}]}], progress_points, regions}
void json_causal(JsonWriter& j, const Report& r);

}  // namespace cprof::report
