#include "causal/minimum_evidence.h"

#include <algorithm>
#include <cstdint>

namespace cprof::causal {
namespace {

struct Evidence {
  uint32_t baseline = 0;       // experiments at 0%
  uint32_t experiments = 0;    // at non-zero speedups
  size_t speedups = 0;         // distinct non-zero speedups
  size_t strong_speedups = 0;  // of those, with kMinExperimentsPerPoint experiments
};

Evidence evidence(const LocationPrediction& p) {
  Evidence e;
  for (const auto& pt : p.points) {
    if (pt.speedup <= 0) {
      e.baseline += pt.experiments;
      continue;
    }
    e.experiments += pt.experiments;
    ++e.speedups;
    if (pt.experiments >= kMinExperimentsPerPoint) ++e.strong_speedups;
  }
  return e;
}

std::string counted(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

size_t required_speedups(const LocationPrediction& p) {
  // A run that offered fewer speedups (--fixed-speedup: one) cannot give a curve more:
  // it is judged on those, or running longer could never meet the minimum.
  return p.speedups_in_run == 0 ? kMinSpeedups : std::min(kMinSpeedups, p.speedups_in_run);
}

bool meets_minimum_evidence(const LocationPrediction& p) {
  const Evidence e = evidence(p);
  return e.baseline >= kMinExperimentsPerPoint && e.strong_speedups >= required_speedups(p);
}

size_t end_to_end_runs_for_curve(size_t speedup_levels) {
  return size_t{2} * kMinExperimentsPerPoint *
         std::min(std::max<size_t>(speedup_levels, 1), kMinSpeedups);
}

std::string evidence_note(const LocationPrediction& p) {
  const Evidence e = evidence(p);
  const size_t required = required_speedups(p);
  return counted(e.experiments, "experiment") + " at " + counted(e.speedups, "speedup") +
         ", baseline " + std::to_string(e.baseline) + ": " +
         (meets_minimum_evidence(p) ? "meets" : "below") + " the minimum evidence of " +
         std::to_string(kMinExperimentsPerPoint) + " per speedup and baseline at " +
         (required == kMinSpeedups ? counted(required, "speedup")
                                   : counted(required, "speedup") + " (all the run used)");
}

}  // namespace cprof::causal
