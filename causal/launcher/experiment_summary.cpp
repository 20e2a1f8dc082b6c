#include "causal/launcher/experiment_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "causal/idle_tail.h"
#include "causal/minimum_evidence.h"
#include "causal/prediction.h"
#include "causal/runtime/settings.h"

namespace cprof::causal {

void ExperimentSummary::count(const format::Record& r) {
  if (std::holds_alternative<format::ProcessRecord>(r)) end_process();
  if (const auto* m = std::get_if<format::MessageRecord>(&r)) {
    never_progressed += m->text == kNoProgressMessage ? 1 : 0;
    const std::string_view prefix = kCountedVisitsMessage;
    if (const size_t colon = m->text.rfind(": ");
        m->text.rfind(prefix, 0) == 0 && colon != std::string::npos && colon > prefix.size()) {
      const std::string name = m->text.substr(prefix.size(), colon - prefix.size());
      counted_visits[name] += std::strtoull(m->text.c_str() + colon + 2, nullptr, 10);
    }
    return;
  }
  const auto* e = std::get_if<format::ExperimentRecord>(&r);
  if (e == nullptr) return;
  ++experiments;
  locations.insert(e->location);
  bool progressed = e->mode == format::ExperimentMode::end_to_end;
  for (const auto& p : e->progress) progressed |= p.visits + p.end > 0;
  with_progress += progressed;
  keep_evidence(*e);
}

void ExperimentSummary::count_earlier(const format::Record& r) {
  if (std::holds_alternative<format::ProcessRecord>(r)) end_process();
  if (const auto* e = std::get_if<format::ExperimentRecord>(&r)) keep_evidence(*e);
}

void ExperimentSummary::keep_evidence(const format::ExperimentRecord& e) {
  if (e.mode != format::ExperimentMode::end_to_end) {
    process_points_.push_back(e);
  } else {
    end_to_end_.push_back(e);
  }
}

void ExperimentSummary::end_process() {
  drop_idle_tail(process_points_);
  with_points_.insert(with_points_.end(), process_points_.begin(), process_points_.end());
  process_points_.clear();
}

std::string ExperimentSummary::too_few(uint64_t shortest_ms) {
  end_process();
  std::vector<std::string> short_of;
  std::set<std::string> with_curve;
  for (const auto& curve : predict_all(with_points_, {.bootstrap_samples = 0})) {
    if (!with_curve.insert(curve.location).second || meets_minimum_evidence(curve)) continue;
    short_of.push_back(curve.location + " (" + evidence_note(curve) + ")");
  }
  std::set<std::string> named;
  for (const auto& e : with_points_) named.insert(e.location);
  for (const auto& location : named) {
    if (with_curve.count(location) == 0) short_of.push_back(location + " (no baseline yet)");
  }
  if (short_of.empty()) return "";
  const size_t more = short_of.size() - 1;
  return fmt::format(
      "too little evidence for a prediction of {}{}; run the program longer or again (-n "
      "RUNS adds runs to the directory), or shorten the experiments with --experiment-ms "
      "(they last {} ms or more)",
      short_of.front(),
      more == 0 ? ""
                : fmt::format(" ({} more location{} short of it too)", more, more == 1 ? "" : "s"),
      shortest_ms);
}

std::string ExperimentSummary::too_few_runs(size_t speedup_levels, bool automatic) const {
  if (end_to_end_.empty()) return "";
  for (const auto& curve : predict_all(end_to_end_, {.bootstrap_samples = 0})) {
    if (meets_minimum_evidence(curve)) return "";
  }
  std::map<std::string, size_t> runs_of;
  for (const auto& e : end_to_end_) ++runs_of[e.location];
  const auto most =
      std::max_element(runs_of.begin(), runs_of.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  const size_t levels = std::min(std::max<size_t>(speedup_levels, 1), kMinSpeedups);
  return fmt::format(
      "no location has the minimum evidence for a prediction yet (the most runs of one: {}, "
      "{}); end to end each run is one experiment, so a curve needs {} runs of its location "
      "({} pairs of a baseline and a sped-up run at {}); add runs to this directory with "
      "--append -n RUNS{}",
      most->second, most->first, end_to_end_runs_for_curve(levels), kMinExperimentsPerPoint,
      levels == 1 ? std::string("its speedup") : fmt::format("each of {} speedups", levels),
      automatic
          ? fmt::format(" (automatic mode continues on {} until it has its curve)", most->first)
          : "");
}

}  // namespace cprof::causal
