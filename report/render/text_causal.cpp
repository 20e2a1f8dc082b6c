#include "report/render/text_causal.h"

#include <fmt/format.h>

#include <iterator>
#include <vector>

#include "report/causal/without_prediction_lines.h"
#include "report/render/text_util.h"
#include "report/report.h"

namespace cprof::report {

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
    const WithoutPredictionLines lines = without_prediction_lines(m.without_prediction);
    for (const auto* n : lines.listed) {
      fmt::format_to(o, "  no prediction for {} ({}): {}\n", n->location,
                     n->progress_point.empty() ? "end to end" : n->progress_point, n->reason);
    }
    if (!lines.few.empty()) {
      fmt::format_to(o,
                     "  no prediction for {}; causal-report --format json lists each "
                     "(causal.without_prediction)\n",
                     lines.few_summary);
    }
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
