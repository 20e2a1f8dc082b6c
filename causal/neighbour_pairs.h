#pragma once
// Throughput predictions for programs whose rate of progress changes over a run
// (docs/causal.md, "Programs whose rate of progress changes"). A benchmark of many
// different tests (SQLite's speedtest1: some statements take a microsecond, others
// 100 ms) makes the time per visit of a 100 ms experiment depend mostly on which test it
// fell in; pooled over the run, sped-up and baseline experiments then differ by tens of
// times what the speedup does (speedtest1 at 50% on one line: -8%, 95% interval -97% to
// 42%). Where the rate changes in phases, experiments close in time ran the same phase:
// each sped-up experiment is compared with the 0% experiments of the same run just
// before and just after it, and left out where those two disagree (a phase changed
// between them).
//
//   unit          a sped-up experiment x and its two neighbouring baselines a, b, whose
//                 times per visit are within kSteadyRatio of each other
//   local p0      (E_a + E_b) / (visits_a + visits_b)
//   point         1 - sum(E_x) / sum(visits_x * local p0) over the units: the sped-up
//                 experiments' time against the time the baseline program took for the
//                 same visits at that moment
//   interval      bootstrap over units (runs first, with units from 3 or more runs)
//
// The pooled estimate stays wherever the baselines show no phases: their times per visit
// vary by less than kPhasedSpread (log scale, standard deviation), or consecutive ones
// differ nearly as much as any two (lag-one semivariance at least kPhasedSemivariance of
// the variance: the rate changes from one experiment to the next, not in phases).

#include <cstdint>
#include <span>
#include <vector>

#include "causal/prediction.h"

namespace cprof::causal {

inline constexpr double kSteadyRatio = 1.25;
inline constexpr double kPhasedSpread = 0.25;
inline constexpr double kPhasedSemivariance = 0.5;
// Fewest consecutive baseline pairs (within runs) the phase test needs.
inline constexpr size_t kPhaseTestPairs = 8;

// Whether the baselines' times per visit change in phases (the test above). Experiments
// without a time are left out of it.
bool rate_changes_in_phases(std::span<const Observation> baselines);

struct NeighbourUnit {
  Observation sped_up;
  Observation before;
  Observation after;
};

// The units of `group` (sped-up experiments of one speedup) among `baselines` (0%
// experiments of the same progress point, any location). `at_changes` counts the
// sped-up experiments left out because their neighbours disagreed.
std::vector<NeighbourUnit> neighbour_units(std::span<const Observation> group,
                                           std::span<const Observation> baselines,
                                           uint32_t& at_changes);

// The point from its units (PredictionPoint::neighbour_units set); program_speedup NaN
// when there is none.
PredictionPoint neighbour_point(std::span<const NeighbourUnit> units, double speedup,
                                const PredictionOptions& options);

}  // namespace cprof::causal
