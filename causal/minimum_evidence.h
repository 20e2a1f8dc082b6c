#pragma once
// The minimum evidence for a causal curve to be trusted: one rule, used by causal-run's
// summary and by the report (docs/report.md, "Causal profile"). A point needs
// kMinExperimentsPerPoint experiments at its speedup, the baseline as many, and a curve
// kMinSpeedups non-zero speedups with such points (or every speedup the run offered, when
// it offered fewer: --fixed-speedup gives one). Below it, a curve is shown with a note,
// not hidden: a short run still says where to look.

#include <cstddef>
#include <string>

#include "causal/prediction.h"

namespace cprof::causal {

inline constexpr size_t kMinSpeedups = 3;

// The speedups with enough experiments a curve of this run needs.
size_t required_speedups(const LocationPrediction& p);
bool meets_minimum_evidence(const LocationPrediction& p);
// End to end each run is one experiment: the runs of one location a curve needs when the
// sped-up runs go through `speedup_levels` speedups (18 for three, 6 for one).
size_t end_to_end_runs_for_curve(size_t speedup_levels);
// "12 experiments at 4 speedups, baseline 6: below the minimum evidence of 3 per speedup
// and baseline at 3 speedups".
std::string evidence_note(const LocationPrediction& p);

}  // namespace cprof::causal
