#include "report/causal/without_prediction_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "causal/prediction.h"

namespace cprof::report {
namespace {

const char* few_kind_label(NoPredictionKind kind) {
  switch (kind) {
    case NoPredictionKind::only_baselines:
      return "with only baselines";
    case NoPredictionKind::no_baseline:
      return "without a baseline of their own";
    case NoPredictionKind::never_reached:
      return "never reached while sped up";
    case NoPredictionKind::phased_few_units:
      return "with too few neighbour units";
    case NoPredictionKind::point_not_reached:
      return "whose experiments missed the point";
  }
  return "";
}

std::string few_summary(const std::vector<const NoPrediction*>& few) {
  std::map<NoPredictionKind, size_t> by_kind;
  std::set<std::string> locations;
  size_t least = SIZE_MAX;
  size_t most = 0;
  bool all_whole_runs = true;
  for (const auto* n : few) {
    ++by_kind[n->kind];
    locations.insert(n->location);
    least = std::min(least, n->experiments);
    most = std::max(most, n->experiments);
    all_whole_runs &= n->progress_point.empty();
  }
  std::vector<std::pair<size_t, NoPredictionKind>> counts;
  counts.reserve(by_kind.size());
  for (const auto& [kind, count] : by_kind) counts.emplace_back(count, kind);
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string kinds;
  for (const auto& [count, kind] : counts) {
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", count, few_kind_label(kind));
  }
  const char* what = all_whole_runs ? "run" : "experiment";
  const std::string how_many = least == most
                                   ? fmt::format("{} {}{}", least, what, least == 1 ? "" : "s")
                               : most == least + 1 ? fmt::format("{} or {} {}s", least, most, what)
                                                   : fmt::format("{} to {} {}s", least, most, what);
  return fmt::format("{} more {} with {} each, too few for a curve ({})", locations.size(),
                     locations.size() == 1 ? "location" : "locations", how_many, kinds);
}

}  // namespace

WithoutPredictionLines without_prediction_lines(const std::vector<NoPrediction>& all) {
  const auto is_few = [](const NoPrediction& n) {
    return n.experiments < causal::kMinExperimentsPerPoint;
  };
  // Few enough of them to name: every one in the model's order.
  const bool count_few =
      static_cast<size_t>(std::count_if(all.begin(), all.end(), is_few)) > kFewListed;
  WithoutPredictionLines out;
  for (const auto& n : all) (count_few && is_few(n) ? out.few : out.listed).push_back(&n);
  if (count_few) out.few_summary = few_summary(out.few);
  return out;
}

}  // namespace cprof::report
