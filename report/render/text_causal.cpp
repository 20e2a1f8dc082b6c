#include "report/render/text_causal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "causal/prediction.h"
#include "report/render/text_util.h"
#include "report/report.h"

namespace cprof::report {
namespace {

// Past this many, locations with fewer experiments than a point needs are counted in one
// line, not listed: an automatic run's screening draws leave dozens with one or two
// (pbzip2, 6 runs: 32 lines after a table of 10).
constexpr size_t kThinListed = 3;

const char* thin_kind_label(NoPredictionKind kind) {
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

// "no prediction for LOCATION (POINT): REASON", one line each, except that locations
// below kMinExperimentsPerPoint experiments are counted by reason in one line when there
// are more than kThinListed of them; --format json lists every one.
void without_prediction_lines(std::back_insert_iterator<std::string> o,
                              const std::vector<NoPrediction>& all) {
  std::vector<const NoPrediction*> thin;
  for (const auto& n : all) {
    if (n.experiments < causal::kMinExperimentsPerPoint) thin.push_back(&n);
  }
  const bool count_thin = thin.size() > kThinListed;
  for (const auto& n : all) {
    if (count_thin && n.experiments < causal::kMinExperimentsPerPoint) continue;
    fmt::format_to(o, "  no prediction for {} ({}): {}\n", n.location,
                   n.progress_point.empty() ? "end to end" : n.progress_point, n.reason);
  }
  if (!count_thin) return;
  std::map<NoPredictionKind, size_t> by_kind;
  std::set<std::string> locations;
  size_t least = SIZE_MAX;
  size_t most = 0;
  bool all_whole_runs = true;
  for (const auto* n : thin) {
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
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", count, thin_kind_label(kind));
  }
  const char* what = all_whole_runs ? "run" : "experiment";
  const std::string how_many = least == most
                                   ? fmt::format("{} {}{}", least, what, least == 1 ? "" : "s")
                               : most == least + 1 ? fmt::format("{} or {} {}s", least, most, what)
                                                   : fmt::format("{} to {} {}s", least, most, what);
  fmt::format_to(o,
                 "  no prediction for {} more {} with {} each, too few for a curve ({}); "
                 "causal-report --format json lists each (causal.without_prediction)\n",
                 locations.size(), locations.size() == 1 ? "location" : "locations", how_many,
                 kinds);
}

}  // namespace

void text_causal(std::string& out, const Report& r) {
  const CausalModel& m = r.causal;
  if (m.empty()) return;
  auto o = std::back_inserter(out);
  if (m.experiments > 0) {
    fmt::format_to(o, "\nCausal profile: {}", plural(m.experiments, "experiment"));
    if (m.end_to_end_runs > 0)
      fmt::format_to(o, " ({})", plural(m.end_to_end_runs, "end-to-end run"));
    if (m.idle_tail_experiments > 0) {
      fmt::format_to(o,
                     "; {} after the last progress left out (the program had stopped "
                     "working)",
                     m.idle_tail_experiments);
    }
    fmt::format_to(o, "\n");
    if (m.predictions.empty()) {
      const bool only_end_to_end = m.end_to_end_runs == m.experiments;
      fmt::format_to(o,
                     "  no prediction: no location has both baseline (0%) and sped-up "
                     "{}yet; {}\n",
                     only_end_to_end                ? "runs "
                     : m.without_prediction.empty() ? "experiments with progress "
                                                    : "experiments that reached it with progress ",
                     only_end_to_end ? "end to end, each run is one experiment: add runs "
                                       "(causal-run --end-to-end --append -n RUNS)"
                                     : "run longer");
    } else {
      fmt::format_to(o, "  ranked by impact (Coz's: the best mean height of the curve from 0), "
                        "phase-corrected\n");
      fmt::format_to(o, "  {:<32} {:<24} {:>9} {:>16}\n", "location", "progress point",
                     "speedup", "program speedup");
      std::vector<std::string> verdicts;
      for (const auto& p : m.predictions) {
        const auto* best = best_point(p);
        const std::string point = p.progress_point.empty() ? "(end to end)" : p.progress_point;
        if (best == nullptr) continue;  // not in predictions (without_prediction says why)
        // The table shows what the verdict says: the corrected value where it differs.
        const double shown =
            p.shows_correction() ? p.corrected(best->program_speedup) : best->program_speedup;
        // What the value is worth, beside it: a reader of the table alone is not misled.
        const CurveStatus status = curve_status(p);
        const char* tag = status == CurveStatus::out_of_bounds   ? "  noise: out of bounds"
                          : status == CurveStatus::weak_evidence ? "  too little evidence"
                                                                 : "";
        fmt::format_to(o, "  {:<32} {:<24} {:>8.0f}% {:>15.1f}%{}\n", p.location, point,
                       best->speedup * 100.0, shown * 100.0, tag);
        verdicts.push_back(causal_verdict(p, *best));
        verdicts.push_back("  (" + evidence_note(p) + ")");
        if (const std::string n = neighbour_note(p); !n.empty())
          verdicts.push_back("  (" + n + ")");
        // A missing correction is said, so a reader knows the value may be too high.
        if (!p.phase.estimated && !p.progress_point.empty()) {
          verdicts.push_back("  (" + p.phase.note + ")");
        }
      }
      for (const auto& v : verdicts) fmt::format_to(o, "  {}\n", v);
      if (const std::string note = few_runs_note(m); !note.empty()) {
        fmt::format_to(o, "  ({})\n", note);
      }
    }
    without_prediction_lines(o, m.without_prediction);
  }
  if (!m.regions.empty()) {
    fmt::format_to(o, "\nTimed regions\n  {:<32} {:>10} {:>12} {:>12} {:>12} {:>12}\n", "region",
                   "count", "mean ms", "min ms", "max ms", "stddev ms");
    for (const auto& rg : m.regions) {
      fmt::format_to(o, "  {:<32} {:>10} {:>12.3f} {:>12.3f} {:>12.3f} {:>12.3f}\n", rg.name,
                     rg.count, rg.mean_ns / 1e6, static_cast<double>(rg.min_ns) / 1e6,
                     static_cast<double>(rg.max_ns) / 1e6, rg.stddev_ns / 1e6);
    }
  }
}

}  // namespace cprof::report
