#pragma once
// Adaptive allocation of experiments over the runs of one automatic causal-run
// (-n RUNS with progress points; docs/causal.md, "Focus"). Coz draws each experiment's
// location from a recent sample, so experiments spread over every location in proportion
// to its samples: a run of a real program gives one or two experiments to each of twenty
// lines and a prediction to none. Here the first run screens (Coz's draw); after each run,
// the next one spends its experiments on the few locations that deserve them:
//   - a location whose curve meets the minimum evidence and whose every interval lies
//     within +-kSettledBand is settled (an effect too small to matter, or none) and dropped;
//   - the others are ranked: those with an interval that excludes zero first (to firm
//     up), then by how much they run: the lower median over its experiments of the
//     samples with the location on the stack per second (one burst does not count as
//     running);
//   - the first `keep` go on; a location once dropped for rank stays out, so that the
//     focus narrows and evidence piles up.
// Pure: records in, names out.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::causal {

// Program speedups within this band of zero are "no measurable effect" for settling.
inline constexpr double kSettledBand = 0.02;

struct FocusChoice {
  std::vector<std::string> locations;  // the next run's locations, best first
  std::vector<std::string> settled;    // dropped: enough evidence, every interval within the band
  size_t with_enough_evidence = 0;     // locations whose curve meets the minimum evidence
  size_t with_effect = 0;              // of those, with an interval that excludes zero
};

// `previous`: the last run's focus (empty after the screening run). Experiments of
// locations outside it still count (they are in the records) but do not come back.
FocusChoice choose_focus(std::span<const format::ExperimentRecord> records, size_t keep,
                         std::span<const std::string> previous);

}  // namespace cprof::causal
