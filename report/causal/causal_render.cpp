#include "report/causal/causal_render.h"

#include <fmt/format.h>

#include <iterator>

#include "report/render/text_util.h"
#include "report/report.h"

namespace cprof::report {
namespace {

const char* kind_name(format::ProgressPointKind k) {
  return k == format::ProgressPointKind::latency ? "latency" : "throughput";
}

const char* source_name(format::ProgressPointSource s) {
  switch (s) {
    case format::ProgressPointSource::coz: return "coz";
    case format::ProgressPointSource::breakpoint: return "breakpoint";
    default: return "api";
  }
}

}  // namespace

void json_causal(JsonWriter& j, const Report& r) {
  const CausalModel& m = r.causal;
  j.key("causal").begin_object();
  j.field("experiments", static_cast<uint64_t>(m.experiments));
  j.field("end_to_end_runs", static_cast<uint64_t>(m.end_to_end_runs));
  j.field("idle_tail_experiments", static_cast<uint64_t>(m.idle_tail_experiments));
  j.key("predictions").begin_array();
  for (const auto& p : m.predictions) {
    j.begin_object().field("location", p.location);
    if (p.progress_point.empty()) {
      j.key("progress_point").null();
    } else {
      j.field("progress_point", p.progress_point);
    }
    // What the headline is worth; the numbers stay whatever it is (docs/report.md).
    j.field("status", curve_status_name(curve_status(p)));
    if (const std::string why = status_reason(p); why.empty()) {
      j.key("not_a_prediction_because").null();
    } else {
      j.field("not_a_prediction_because", why);
    }
    if (const auto* best = best_point(p)) j.field("verdict", causal_verdict(p, *best));
    j.field("impact", causal_impact(p));
    j.field("impact_phase_corrected", corrected_impact(p));
    j.field("meets_minimum_evidence", meets_minimum_evidence(p));
    j.field("evidence", evidence_note(p));
    j.field("phase_fraction", p.phase.fraction);
    j.field("phase_estimated", p.phase.estimated);
    j.field("phase_note", p.phase.note);
    j.key("points").begin_array();
    for (const auto& pt : p.points) {
      // The measured point as before, then the phase-corrected values beside it.
      j.begin_object(true)
          .field("speedup", pt.speedup)
          .field("program_speedup", pt.program_speedup)
          .field("ci_low", pt.ci_low)
          .field("ci_high", pt.ci_high)
          .field("experiments", pt.experiments)
          .field("phase_fraction", p.phase.fraction)
          .field("program_speedup_phase_corrected", p.corrected(pt.program_speedup))
          .field("ci_low_phase_corrected", p.corrected(pt.ci_low))
          .field("ci_high_phase_corrected", p.corrected(pt.ci_high))
          .field("out_of_bounds", point_out_of_bounds(pt))
          .field("delay_share", pt.delay_share)
          .end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.key("without_prediction").begin_array();
  for (const auto& n : m.without_prediction) {
    j.begin_object(true).field("location", n.location);
    if (n.progress_point.empty()) {
      j.key("progress_point").null();
    } else {
      j.field("progress_point", n.progress_point);
    }
    j.field("reason", n.reason);
    if (!n.points.empty()) {  // the curve its experiments gave, as data, not a prediction
      j.key("points").begin_array();
      for (const auto& pt : n.points) {
        j.begin_object(true)
            .field("speedup", pt.speedup)
            .field("program_speedup", pt.program_speedup)
            .field("ci_low", pt.ci_low)
            .field("ci_high", pt.ci_high)
            .field("experiments", pt.experiments)
            .end_object();
      }
      j.end_array();
    }
    j.end_object();
  }
  j.end_array();
  j.key("progress_points").begin_array();
  for (const auto& pp : m.progress_points) {
    j.begin_object(true)
        .field("name", pp.name)
        .field("kind", kind_name(pp.kind))
        .field("source", source_name(pp.source))
        .field("file", pp.file)
        .field("line", pp.line)
        .end_object();
  }
  j.end_array();
  j.key("regions").begin_array();
  for (const auto& rg : m.regions) {
    j.begin_object(true)
        .field("name", rg.name)
        .field("count", rg.count)
        .field("mean_ns", rg.mean_ns)
        .field("min_ns", rg.min_ns)
        .field("max_ns", rg.max_ns)
        .field("stddev_ns", rg.stddev_ns)
        .end_object();
  }
  j.end_array();
  j.end_object();
}

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
      fmt::format_to(o, "  no prediction: no location has both baseline (0%) and sped-up "
                        "experiments {}with progress yet; run longer\n",
                     m.without_prediction.empty() ? "" : "that reached it ");
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
        // A missing correction is said, so a reader knows the value may be too high.
        if (!p.phase.estimated && !p.progress_point.empty()) {
          verdicts.push_back("  (" + p.phase.note + ")");
        }
      }
      for (const auto& v : verdicts) fmt::format_to(o, "  {}\n", v);
    }
    for (const auto& n : m.without_prediction) {
      fmt::format_to(o, "  no prediction for {} ({}): {}\n", n.location,
                     n.progress_point.empty() ? "end to end" : n.progress_point, n.reason);
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
