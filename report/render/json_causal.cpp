#include "report/render/json_causal.h"

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
  if (const std::string note = few_runs_note(m); note.empty()) {
    j.key("intervals_note").null();
  } else {
    j.field("intervals_note", note);
  }
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
          .field("runs", pt.runs)
          .field("neighbour_units", pt.neighbour_units)
          .field("at_rate_changes", pt.at_rate_changes)
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
    j.field("experiments", n.experiments);
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

}  // namespace cprof::report
