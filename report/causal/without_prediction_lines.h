#pragma once
// How the text and HTML reports name the locations without a curve (CausalModel::
// without_prediction): one by one, except that those with fewer experiments than a point
// needs are counted in one line when there are more than kFewListed of them. An automatic
// run's screening draws leave dozens with one or two experiments (pbzip2, 6 runs: 32 lines
// after a table of 10). JSON and SQLite list every one.

#include <string>
#include <vector>

#include "report/causal/causal_model.h"

namespace cprof::report {

inline constexpr size_t kFewListed = 3;

struct WithoutPredictionLines {
  std::vector<const NoPrediction*> listed;  // named one by one, in the model's order
  std::vector<const NoPrediction*> few;     // counted in `few_summary` (empty: none)
  // "31 more locations with 1 experiment each, too few for a curve (20 without a baseline
  // of their own, 11 with only baselines)", to follow "no prediction for ".
  std::string few_summary;
};

WithoutPredictionLines without_prediction_lines(const std::vector<NoPrediction>& all);

}  // namespace cprof::report
