#include "causal/idle_tail.h"

#include <algorithm>

namespace cprof::causal {
namespace {

bool saw_progress(const format::ExperimentRecord& e) {
  return std::any_of(e.progress.begin(), e.progress.end(),
                     [](const format::ProgressDelta& d) { return d.visits + d.begin + d.end > 0; });
}

bool with_points(const format::ExperimentRecord& e) {
  return e.mode != format::ExperimentMode::end_to_end;
}

}  // namespace

size_t drop_idle_tail(std::vector<format::ExperimentRecord>& experiments) {
  const auto last = std::find_if(experiments.rbegin(), experiments.rend(),
                                 [](const auto& e) { return with_points(e) && saw_progress(e); });
  if (last == experiments.rend()) return 0;
  const auto tail = last.base();  // the first experiment after the last progress
  const auto kept = std::remove_if(tail, experiments.end(), with_points);
  const auto dropped = static_cast<size_t>(experiments.end() - kept);
  experiments.erase(kept, experiments.end());
  return dropped;
}

}  // namespace cprof::causal
