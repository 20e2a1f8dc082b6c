#pragma once
// The causal sections of the json and text reports (docs/report.md).

#include <string>

#include "report/render/json_writer.h"

namespace cprof::report {

struct Report;

// "causal": {experiments, predictions: [{location, progress_point, points: [{speedup,
// program_speedup, ci_low, ci_high, experiments}]}], progress_points, regions}
void json_causal(JsonWriter& j, const Report& r);
// A short table: location, progress point, best predicted program speedup, the verdict;
// then the timed regions. Nothing without experiments or regions.
void text_causal(std::string& out, const Report& r);

}  // namespace cprof::report
