#include "causal/end_to_end_speedups.h"

#include <string>

namespace cprof::causal {

EndToEndSpeedups::EndToEndSpeedups(const std::vector<double>& levels, uint64_t seed) : rng_(seed) {
  for (const double s : levels) {
    if (s > 0) levels_.push_back(s);
  }
  if (levels_.empty() && !levels.empty()) levels_.push_back(0);  // the user asked for 0 only
  if (levels_.empty()) levels_ = few_speedups();
}

double EndToEndSpeedups::next() {
  if (round_.empty()) round_ = levels_;
  const size_t pick = rng_.below(round_.size());
  const double s = round_[pick];
  round_[pick] = round_.back();
  round_.pop_back();
  return s;
}

}  // namespace cprof::causal
