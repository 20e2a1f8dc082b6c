#pragma once
// The causal section of the text report (docs/report.md). Internal to render/.

#include <string>

namespace cprof::report {

struct Report;

// A short table: location, progress point, best predicted program speedup, the verdict;
// then the timed regions. Nothing without experiments or regions.
void text_causal(std::string& out, const Report& r);

}  // namespace cprof::report
