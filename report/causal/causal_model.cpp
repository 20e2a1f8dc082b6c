#include "report/causal/causal_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>

#include "causal/progress_registry.h"
#include "report/load/process_profile.h"

namespace cprof::report {

namespace {

// The (location, progress point) pairs of the experiments that have no curve in
// `curves`, with the reason, keyed as predict_all keys them (end to end: point "").
// A progress point that none of a location's experiments saw is not one of them.
// Locations whose experiments never reached them: (whole run?, location) -> how many
// sped-up experiments it had, where none of them selected a sample or inserted a delay.
// Such an experiment slowed nothing down: it ran the unmodified program, like a baseline,
// so whatever difference it shows from the baseline is run-to-run noise.
using NeverReached = std::map<std::pair<bool, std::string>, size_t>;

NeverReached never_reached(const std::vector<format::ExperimentRecord>& all) {
  std::map<std::pair<bool, std::string>, std::pair<size_t, bool>> sped_up;  // count, reached
  for (const auto& e : all) {
    if (e.speedup <= 0) continue;
    auto& s = sped_up[{e.mode == format::ExperimentMode::end_to_end, e.location}];
    ++s.first;
    s.second |= e.selected_samples > 0 || e.delay_ns > 0;
  }
  NeverReached out;
  for (const auto& [key, s] : sped_up) {
    if (!s.second) out[key] = s.first;
  }
  return out;
}

std::string never_reached_reason(size_t sped_up, bool whole_run) {
  const char* what = whole_run ? "run" : "experiment";
  return fmt::format(
      "never reached while its experiments ran: {} (nothing was slowed down, so any "
      "difference from the baseline is run-to-run noise)",
      sped_up == 1 ? fmt::format("its one sped-up {} selected no sample", what)
                   : fmt::format("none of its {} sped-up {}s selected a sample", sped_up, what));
}

std::string phased_without_units_reason(const causal::PhasedWithoutUnits& gap) {
  // Enough units in all, spread over several speedups: say that, not "fewer than 3".
  const std::string short_of =
      gap.speedups > 1 && gap.units >= causal::kMinExperimentsPerPoint
          ? fmt::format("spread over {} speedups, at most {} at one, fewer than the {} a "
                        "speedup needs",
                        gap.speedups, gap.most_units, causal::kMinExperimentsPerPoint)
          : fmt::format("fewer than the {} a speedup needs", causal::kMinExperimentsPerPoint);
  return fmt::format(
      "the program's rate of progress changes in phases, so each sped-up experiment is compared "
      "with the baselines just before and after it: {} of its {} sped-up experiments had two "
      "that agree ({} fell on a change of phase), {}; its own baselines, wherever they fell, "
      "would measure which phase each experiment ran in, not the speedup. Run longer or again "
      "(-n RUNS)",
      gap.units, gap.sped_up, gap.at_changes, short_of);
}

std::vector<NoPrediction> locations_without_curve(
    const std::vector<format::ExperimentRecord>& progress,
    const std::vector<format::ExperimentRecord>& end_to_end,
    const std::vector<causal::LocationPrediction>& curves, const NeverReached& unreached,
    const std::vector<causal::PhasedWithoutUnits>& phased) {
  struct Seen {
    size_t baselines = 0;  // 0% experiments
    size_t sped_up = 0;    // the others
    bool visited = false;  // some visit, arrival or departure
    bool baseline_visited = false;
  };
  std::map<std::pair<std::string, std::string>, Seen> seen;
  for (const auto& r : progress) {
    for (const auto& d : r.progress) {
      auto& s = seen[{r.location, d.name}];
      const bool visited = d.visits + d.begin + d.end > 0;
      (r.speedup == 0 ? s.baselines : s.sped_up) += 1;
      s.visited |= visited;
      s.baseline_visited |= visited && r.speedup == 0;
    }
  }
  size_t end_to_end_baselines = 0;
  for (const auto& r : end_to_end) {
    auto& s = seen[{r.location, ""}];
    (r.speedup == 0 ? s.baselines : s.sped_up) += 1;
    s.visited = s.baseline_visited = true;
    end_to_end_baselines += r.speedup == 0;
  }
  std::vector<NoPrediction> out;
  for (const auto& entry : seen) {
    const auto& key = entry.first;  // not a structured binding: clang < 16 cannot capture one
    const Seen& s = entry.second;
    const bool has_curve = std::any_of(curves.begin(), curves.end(), [&key](const auto& c) {
      return c.location == key.first && c.progress_point == key.second;
    });
    if (has_curve || !s.visited) continue;
    const bool whole_run = key.second.empty();
    const char* what = whole_run ? "runs" : "experiments";
    std::string reason;
    NoPredictionKind kind = NoPredictionKind::point_not_reached;
    const auto unreached_it = unreached.find({whole_run, key.first});
    if (s.sped_up == 0) {
      reason = fmt::format("only baseline (0%) {}, none sped it up", what);
      kind = NoPredictionKind::only_baselines;
    } else if (whole_run ? end_to_end_baselines == 0 : s.baselines == 0) {
      reason = whole_run ? "no baseline (0%) run to compare with"
                         : "no baseline (0%) experiment of its own to compare with";
      kind = NoPredictionKind::no_baseline;
    } else if (unreached_it != unreached.end()) {
      reason = never_reached_reason(unreached_it->second, whole_run);
      kind = NoPredictionKind::never_reached;
    } else if (const auto gap = std::find_if(phased.begin(), phased.end(),
                                             [&key](const causal::PhasedWithoutUnits& g) {
                                               return g.location == key.first &&
                                                      g.progress_point == key.second;
                                             });
               gap != phased.end()) {
      reason = phased_without_units_reason(*gap);
      kind = NoPredictionKind::phased_few_units;
    } else if (!s.baseline_visited) {
      reason = "its baseline (0%) experiments never reached this progress point";
    } else {
      reason = "its sped-up experiments never reached this progress point";
    }
    out.push_back(
        NoPrediction{key.first, key.second, std::move(reason), kind, s.baselines + s.sped_up});
  }
  return out;
}

std::vector<format::ExperimentRecord> all_records(
    const std::vector<format::ExperimentRecord>& progress,
    const std::vector<format::ExperimentRecord>& end_to_end) {
  std::vector<format::ExperimentRecord> all = progress;
  all.insert(all.end(), end_to_end.begin(), end_to_end.end());
  return all;
}

}  // namespace

CausalModel build_causal_model(const std::vector<ProcessProfile>& processes,
                               const SymbolizedProfiles* symbols) {
  CausalModel m;
  // End to end a 0% run is the baseline of every location (the same unmodified program);
  // with progress points a location's own 0% experiments are (Coz's choice).
  std::vector<format::ExperimentRecord> end_to_end, progress;
  std::vector<uint32_t> progress_runs;  // the process of each: the bootstrap's runs
  std::map<std::string, causal::RegionStats> regions;
  uint32_t process_index = 0;
  for (const auto& p : processes) {
    for (const auto& e : p.experiments) {
      if (e.mode == format::ExperimentMode::end_to_end) {
        end_to_end.push_back(e);
      } else {
        progress.push_back(e);
        progress_runs.push_back(process_index);
      }
    }
    ++process_index;
    m.idle_tail_experiments += p.idle_tail_experiments;
    for (const auto& pp : p.progress_points) {
      const bool seen = std::any_of(m.progress_points.begin(), m.progress_points.end(),
                                    [&](const auto& q) { return q.name == pp.name; });
      if (!seen) m.progress_points.push_back(pp);
    }
    for (const auto& r : p.regions) {
      regions[r.name].merge(RunningStats::from_summary(
          r.count, r.mean_ns, r.stddev_ns * r.stddev_ns, static_cast<double>(r.min_ns),
          static_cast<double>(r.max_ns)));
    }
  }
  m.experiments = progress.size() + end_to_end.size();
  m.end_to_end_runs = end_to_end.size();
  causal::PredictionOptions options;
  causal::PredictionOptions pooled = options;
  pooled.pooled_baseline = true;
  std::vector<causal::PhasedWithoutUnits> phased;
  auto curves = causal::predict_all(progress, options, progress_runs, &phased);
  for (auto& c : causal::predict_all(end_to_end, pooled)) curves.push_back(std::move(c));
  std::sort(curves.begin(), curves.end(), [](const auto& a, const auto& b) {
    return std::tie(a.location, a.progress_point) < std::tie(b.location, b.progress_point);
  });
  std::erase_if(curves, [](const auto& c) { return best_point(c) == nullptr; });
  // A location its experiments never reached has no prediction, only its curve as data.
  const NeverReached unreached = never_reached(all_records(progress, end_to_end));
  std::map<std::pair<std::string, std::string>, std::vector<causal::PredictionPoint>> set_aside;
  std::erase_if(curves, [&](auto& c) {
    if (!unreached.contains({c.progress_point.empty(), c.location})) return false;
    set_aside[{c.location, c.progress_point}] = std::move(c.points);
    return true;
  });
  m.without_prediction = locations_without_curve(progress, end_to_end, curves, unreached, phased);
  for (auto& n : m.without_prediction) {
    if (const auto it = set_aside.find({n.location, n.progress_point}); it != set_aside.end()) {
      n.points = std::move(it->second);
    }
  }

  const auto phases = estimate_phase_corrections(processes, symbols);
  for (auto& p : curves) {
    CausalCurve c{std::move(p), {}};
    if (c.progress_point.empty()) {
      c.phase.note = "end to end: whole-run time needs no phase correction";
    } else if (const auto it = phases.find(c.location); it != phases.end()) {
      c.phase = it->second;
    }
    m.predictions.push_back(std::move(c));
  }
  // predict_all sorts by name; stable_sort keeps that as the tie order. Ranked on the
  // corrected curves: a location that runs in a short phase gains the program less than
  // its experiments measured.
  // Curves below the minimum evidence after those that meet it: their few experiments
  // spread widest, so by impact alone they would top the ranking by chance. Curves out of
  // bounds are noise: after every other, whatever their impact.
  const auto rank_group = [](const CausalCurve& c) {
    switch (curve_status(c)) {
      case CurveStatus::prediction:
        return 0;
      case CurveStatus::weak_evidence:
        return 1;
      default:
        return 2;
    }
  };
  std::stable_sort(m.predictions.begin(), m.predictions.end(),
                   [&rank_group](const auto& a, const auto& b) {
                     if (rank_group(a) != rank_group(b)) return rank_group(a) < rank_group(b);
                     return corrected_impact(a) > corrected_impact(b);
                   });
  for (const auto& [name, s] : regions) {
    m.regions.push_back(CausalRegion{name, s.count(), s.mean(), s.stddev(),
                                     static_cast<uint64_t>(s.min()),
                                     static_cast<uint64_t>(s.max())});
  }
  return m;
}

const causal::PredictionPoint* best_point(const causal::LocationPrediction& p) {
  const causal::PredictionPoint* best = nullptr;
  for (const auto& pt : p.points) {
    if (pt.speedup <= 0) continue;
    if (best == nullptr || pt.program_speedup > best->program_speedup + 1e-12) best = &pt;
  }
  return best;
}

double causal_impact(const causal::LocationPrediction& p) {
  // Points are ascending by speedup; the curve starts at (0, 0) when no 0% point is there.
  double area = 0, best = 0, prev_s = 0, prev_y = 0;
  for (const auto& pt : p.points) {
    if (pt.speedup <= 0) {
      prev_y = pt.program_speedup;
      continue;
    }
    area += (prev_y + pt.program_speedup) / 2 * (pt.speedup - prev_s);
    best = std::max(best, area / pt.speedup);
    prev_s = pt.speedup;
    prev_y = pt.program_speedup;
  }
  return best;
}

double corrected_impact(const CausalCurve& c) { return c.corrected(causal_impact(c)); }

namespace {
// 1e-9: a curve exactly at the bound (a location that is all of the time) is not noise.
constexpr double kBoundSlack = 1e-9;

// The delay bound with room for noise: a location that is the whole critical path
// measures exactly its delay share, so only a clear excess is noise.
double delay_bound(const causal::PredictionPoint& pt) {
  if (!std::isfinite(pt.delay_share)) return std::numeric_limits<double>::infinity();
  return pt.delay_share + std::max(0.01, 0.1 * pt.delay_share);
}

bool delay_bound_is_tighter(const causal::PredictionPoint& pt) {
  return delay_bound(pt) < pt.speedup + kBoundSlack;
}

}  // namespace

bool point_out_of_bounds(const causal::PredictionPoint& pt) {
  if (pt.speedup <= 0) return false;
  const double bound = std::min(pt.speedup + kBoundSlack, delay_bound(pt));
  return std::isfinite(pt.ci_low) ? pt.ci_low > bound : pt.program_speedup > bound;
}

bool point_beyond_delays(const causal::PredictionPoint& pt) {
  return pt.speedup > 0 && std::isfinite(pt.delay_share) && !point_out_of_bounds(pt) &&
         pt.program_speedup > 1.25 * pt.delay_share + 0.01;
}

bool point_above_bound(const causal::PredictionPoint& pt) {
  return pt.speedup > 0 && pt.program_speedup > pt.speedup + kBoundSlack &&
         !point_out_of_bounds(pt);
}

CurveStatus curve_status(const causal::LocationPrediction& p) {
  if (const auto* best = best_point(p); best != nullptr && point_out_of_bounds(*best)) {
    return CurveStatus::out_of_bounds;
  }
  return meets_minimum_evidence(p) ? CurveStatus::prediction : CurveStatus::weak_evidence;
}

const char* curve_status_name(CurveStatus s) {
  switch (s) {
    case CurveStatus::weak_evidence: return "weak_evidence";
    case CurveStatus::out_of_bounds: return "out_of_bounds";
    default: return "prediction";
  }
}

namespace {

constexpr const char* kWeak = "too little evidence yet: run longer before relying on it";

std::string out_of_bounds_reason(const causal::PredictionPoint& pt) {
  if (delay_bound_is_tighter(pt)) {
    return fmt::format(
        "run-to-run noise: its experiments inserted delays for {0:.0f}% of their time, so "
        "speeding it up by {1:.0f}% can speed the program up by at most about that; they "
        "measured {2:.0f}%, which would need the sped-up experiments to make progress faster "
        "than the baselines in real time (drift between experiments, or delayed threads "
        "handing their CPU to others)",
        pt.delay_share * 100.0, pt.speedup * 100.0, pt.program_speedup * 100.0);
  }
  return fmt::format(
      "run-to-run noise: speeding a location up by {0:.0f}% can speed the program up by at most "
      "{0:.0f}% (Amdahl's law), and its experiments measured {1:.0f}%",
      pt.speedup * 100.0, pt.program_speedup * 100.0);
}

}  // namespace

std::string status_reason(const causal::LocationPrediction& p) {
  switch (curve_status(p)) {
    case CurveStatus::out_of_bounds: return out_of_bounds_reason(*best_point(p));
    case CurveStatus::weak_evidence: return kWeak;
    default: return "";
  }
}

namespace {

// The sentence; below the minimum evidence it starts by saying so, before any number. A
// number comes with its 95% interval, and an effect is claimed only when that interval
// excludes zero: otherwise the sentence says there is no measurable effect, and shows the
// interval that includes zero (docs/report.md, "Verdicts").
std::string headline(const std::string& location, double speedup, double program_speedup,
                     double ci_low, double ci_high, bool weak) {
  const double gain = program_speedup * 100.0;
  const char* qualifier = weak ? "too little evidence yet: " : "";
  const bool has_interval = std::isfinite(ci_low) && std::isfinite(ci_high);
  const std::string interval =
      has_interval ? fmt::format("95% interval {:.0f}% to {:.0f}%", ci_low * 100.0, ci_high * 100.0)
                   : std::string();
  if (has_interval && ci_low <= 0 && ci_high >= 0) {
    return fmt::format(
        "{}speeding up {} by {:.0f}% had no measurable effect on the program: "
        "{:+.0f}% ({}, which includes 0)",
        qualifier, location, speedup * 100.0, gain, interval);
  }
  const std::string shown = has_interval ? " (" + interval + ")" : "";
  if (std::abs(gain) < 0.5) {
    return fmt::format("{}speeding up {} by {:.0f}% would not speed up the program measurably{}",
                       qualifier, location, speedup * 100.0, shown);
  }
  if (gain < 0) {
    return fmt::format(
        "{}speeding up {} by {:.0f}% would slow the program down by about {:.0f}%"
        "{}",
        qualifier, location, speedup * 100.0, -gain, shown);
  }
  return fmt::format("{}speeding up {} by {:.0f}% would speed up the program by about {:.0f}%{}",
                     qualifier, location, speedup * 100.0, gain, shown);
}

// End to end each run is one experiment: running longer adds nothing, more runs do.
std::string weak_suffix(bool weak, const causal::LocationPrediction& p) {
  if (!weak) return "";
  return p.progress_point.empty() ? " (more runs before relying on it: end to end, each run is "
                                    "one experiment)"
                                  : " (run longer before relying on it)";
}

// A gain well above what the experiments' delays can explain, within the noise: said, so
// that a number no speedup of the location could give is not taken at its word.
std::string beyond_delays_note(const causal::PredictionPoint& pt) {
  if (!point_beyond_delays(pt)) return "";
  return fmt::format(
      " (more than the {:.0f}% its experiments' delays can explain: expect at most that; the "
      "rest is noise or drift between experiments)",
      pt.delay_share * 100.0);
}

}  // namespace

std::string causal_verdict(const causal::LocationPrediction& p, const causal::PredictionPoint& pt) {
  if (point_out_of_bounds(pt)) {
    return fmt::format("no prediction for {}: {}", p.location, out_of_bounds_reason(pt));
  }
  const bool weak = !meets_minimum_evidence(p);
  if (point_above_bound(pt)) {
    // The truth lies between the interval's low end and the bound: say both, and why.
    return fmt::format(
        "{}speeding up {} by {:.0f}% would speed up the program by {:.0f}-{:.0f}%, as much as "
        "it can (measured {:.0f}%: above Amdahl's bound, within its noise){}",
        weak ? "too little evidence yet: " : "", p.location, pt.speedup * 100.0,
        std::max(pt.ci_low, 0.0) * 100.0, pt.speedup * 100.0, pt.program_speedup * 100.0,
        weak_suffix(weak, p));
  }
  return headline(p.location, pt.speedup, pt.program_speedup, pt.ci_low, pt.ci_high, weak) +
         beyond_delays_note(pt) + weak_suffix(weak, p);
}

std::string neighbour_note(const causal::LocationPrediction& p) {
  const auto* best = best_point(p);
  if (best == nullptr || best->neighbour_units == 0) return "";
  return fmt::format(
      "the program's rate of progress changes in phases: each of {} sped-up {} was compared "
      "with the baseline experiments just before and after it{}",
      best->neighbour_units, best->neighbour_units == 1 ? "experiment" : "experiments",
      best->at_rate_changes == 0
          ? ""
          : fmt::format("; {} more fell on a change of phase and {} left out",
                        best->at_rate_changes, best->at_rate_changes == 1 ? "was" : "were"));
}

std::string few_runs_note(const CausalModel& m) {
  size_t with_interval = 0, few = 0;
  uint32_t fewest = UINT32_MAX, most = 0;  // runs, among the few-run intervals
  for (const auto& p : m.predictions) {
    const auto* best = best_point(p);
    if (best == nullptr || best->runs == 0 || !std::isfinite(best->ci_low)) continue;
    ++with_interval;
    if (best->runs >= causal::kMinRunsToResample) continue;
    ++few;
    fewest = std::min(fewest, best->runs);
    most = std::max(most, best->runs);
  }
  if (few == 0) return "";
  const bool one = few == 1;
  const std::string which = few == with_interval
                                ? (one ? "the interval" : "the intervals")
                                : fmt::format("{} of the {} intervals", few, with_interval);
  return fmt::format(
      "{} {} from {}: {} the spread between {} experiments, not the drift between runs, "
      "which on a shared or virtual machine is often larger; with {} or more runs "
      "(causal-run -n RUNS, or --append) intervals resample whole runs first",
      which, one ? "comes" : "come",
      most == 1     ? "one run"
      : fewest == 2 ? "two runs"
                    : "one or two runs",
      one ? "it counts" : "they count", most == 1 ? "that run's" : "those runs'",
      causal::kMinRunsToResample);
}

std::string causal_verdict(const CausalCurve& c, const causal::PredictionPoint& pt) {
  const auto& measured = static_cast<const causal::LocationPrediction&>(c);
  if (!c.shows_correction() || point_out_of_bounds(pt) || point_above_bound(pt)) {
    return causal_verdict(measured, pt);
  }
  const bool weak = !meets_minimum_evidence(c);
  return fmt::format("{} (measured {:.0f}%; {}: corrected for that (Coz's phase correction)){}{}",
                     headline(c.location, pt.speedup, c.corrected(pt.program_speedup),
                              c.corrected(pt.ci_low), c.corrected(pt.ci_high), weak),
                     pt.program_speedup * 100.0, c.phase.note, beyond_delays_note(pt),
                     weak_suffix(weak, c));
}

}  // namespace cprof::report
