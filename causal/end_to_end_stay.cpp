#include "causal/end_to_end_stay.h"

#include <algorithm>
#include <map>
#include <set>

#include "causal/minimum_evidence.h"
#include "causal/prediction.h"

namespace cprof::causal {

EndToEndChoice end_to_end_locations_to_continue(std::span<const format::ExperimentRecord> records) {
  struct Runs {
    size_t count = 0;
    uint64_t latest_ns = 0;
    double on_stack_ns = 0;  // its samples (any thread) times the period
    double duration_ns = 0;
  };
  std::vector<format::ExperimentRecord> end_to_end;
  std::map<std::string, Runs> runs_of;
  for (const auto& r : records) {
    if (r.mode != format::ExperimentMode::end_to_end) continue;
    end_to_end.push_back(r);
    Runs& runs = runs_of[r.location];
    ++runs.count;
    runs.latest_ns = std::max(runs.latest_ns, r.time_ns);
    runs.on_stack_ns += static_cast<double>(r.selected_samples) * static_cast<double>(r.period_ns);
    runs.duration_ns += static_cast<double>(r.duration_ns);
  }
  std::set<std::string> complete;
  for (const auto& curve : predict_all(end_to_end, {.bootstrap_samples = 0})) {
    if (meets_minimum_evidence(curve)) complete.insert(curve.location);
  }
  EndToEndChoice choice;
  uint64_t latest_ns = 0;
  std::vector<std::pair<std::string, Runs>> short_of;
  for (const auto& [location, runs] : runs_of) {
    choice.runs[location] = runs.count;
    if (choice.latest.empty() || runs.latest_ns > latest_ns) {
      choice.latest = location;
      latest_ns = runs.latest_ns;
    }
    // A location with no baseline, or no sped-up run, has no curve at all: short of it.
    if (complete.count(location) != 0) {
      choice.with_curve.push_back(location);
      continue;
    }
    const double share = runs.duration_ns > 0 ? runs.on_stack_ns / runs.duration_ns : 0;
    if (share < kTooLittleToStayShare) {
      choice.too_little.emplace_back(location, share);
    } else {
      short_of.emplace_back(location, runs);
    }
  }
  std::sort(short_of.begin(), short_of.end(), [](const auto& a, const auto& b) {
    if (a.second.count != b.second.count) return a.second.count > b.second.count;
    return a.second.latest_ns > b.second.latest_ns;
  });
  choice.to_continue.reserve(short_of.size());
  for (auto& [location, runs] : short_of) choice.to_continue.push_back(std::move(location));
  return choice;
}

}  // namespace cprof::causal
