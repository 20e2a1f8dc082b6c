#pragma once
// The speedups of the sped-up runs of an end-to-end causal-run (docs/causal.md, "End-to-end
// mode"). Each run is one experiment, so a curve's minimum evidence (3 pairs at each of 3
// speedups, causal/minimum_evidence.h) costs 18 runs at the least; drawn at random from
// the default 21 levels, 9 pairs leave most levels with one run or none. Here the levels
// are few (kFewSpeedups when the user chose none) and the pairs go through all of them
// before any comes back, each round in a seeded order (a level is not tied to the time of
// the round; the pairing cancels the drift between rounds anyway).

#include <cstdint>
#include <vector>

#include "causal/experiment.h"
#include "causal/rng.h"

namespace cprof::causal {

class EndToEndSpeedups {
 public:
  // `levels`: the user's --speedups (0 dropped where others remain: the baselines are the
  // even runs), or empty for kFewSpeedups.
  EndToEndSpeedups(const std::vector<double>& levels, uint64_t seed);

  // The next sped-up run's speedup (a fraction).
  double next();
  size_t levels() const { return levels_.size(); }

 private:
  std::vector<double> levels_;
  std::vector<double> round_;  // this round's levels not taken yet
  Rng rng_;
};

}  // namespace cprof::causal
