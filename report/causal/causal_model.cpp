#include "report/causal/causal_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "causal/progress.h"
#include "report/load/process_profile.h"

namespace cprof::report {

namespace {

// The (location, progress point) pairs of the experiments that have no curve in
// `curves`, with the reason, keyed as predict_all keys them (end to end: point "").
// A progress point that none of a location's experiments saw is not one of them.
std::vector<NoPrediction> locations_without_curve(
    const std::vector<format::ExperimentRecord>& progress,
    const std::vector<format::ExperimentRecord>& end_to_end,
    const std::vector<causal::LocationPrediction>& curves) {
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
    if (s.sped_up == 0) {
      reason = fmt::format("only baseline (0%) {}, none sped it up", what);
    } else if (whole_run ? end_to_end_baselines == 0 : s.baselines == 0) {
      reason = whole_run ? "no baseline (0%) run to compare with"
                         : "no baseline (0%) experiment of its own to compare with";
    } else if (!s.baseline_visited) {
      reason = "its baseline (0%) experiments never reached this progress point";
    } else {
      reason = "its sped-up experiments never reached this progress point";
    }
    out.push_back(NoPrediction{key.first, key.second, std::move(reason)});
  }
  return out;
}

}  // namespace

CausalModel build_causal_model(const std::vector<ProcessProfile>& processes,
                               const SymbolizedProfiles* symbols) {
  CausalModel m;
  std::vector<format::ExperimentRecord> all;
  std::map<std::string, causal::RegionStats> regions;
  for (const auto& p : processes) {
    all.insert(all.end(), p.experiments.begin(), p.experiments.end());
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
  m.experiments = all.size();
  m.end_to_end_runs = static_cast<size_t>(std::count_if(all.begin(), all.end(), [](const auto& e) {
    return e.mode == format::ExperimentMode::end_to_end;
  }));
  // End to end a 0% run is the baseline of every location (the same unmodified program);
  // with progress points a location's own 0% experiments are (Coz's choice).
  std::vector<format::ExperimentRecord> end_to_end, progress;
  for (auto& e : all) {
    (e.mode == format::ExperimentMode::end_to_end ? end_to_end : progress).push_back(std::move(e));
  }
  causal::PredictionOptions options;
  causal::PredictionOptions pooled = options;
  pooled.pooled_baseline = true;
  auto curves = causal::predict_all(progress, options);
  for (auto& c : causal::predict_all(end_to_end, pooled)) curves.push_back(std::move(c));
  std::sort(curves.begin(), curves.end(), [](const auto& a, const auto& b) {
    return std::tie(a.location, a.progress_point) < std::tie(b.location, b.progress_point);
  });
  std::erase_if(curves, [](const auto& c) { return best_point(c) == nullptr; });
  m.without_prediction = locations_without_curve(progress, end_to_end, curves);

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
  std::stable_sort(m.predictions.begin(), m.predictions.end(), [](const auto& a, const auto& b) {
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

struct Evidence {
  uint32_t baseline = 0;      // experiments at 0%
  uint32_t experiments = 0;   // at non-zero speedups
  size_t speedups = 0;        // distinct non-zero speedups
  size_t strong_speedups = 0; // of those, with kMinExperimentsPerPoint experiments
};

Evidence evidence(const causal::LocationPrediction& p) {
  Evidence e;
  for (const auto& pt : p.points) {
    if (pt.speedup <= 0) {
      e.baseline += pt.experiments;
      continue;
    }
    e.experiments += pt.experiments;
    ++e.speedups;
    if (pt.experiments >= kMinExperimentsPerPoint) ++e.strong_speedups;
  }
  return e;
}

}  // namespace

bool meets_minimum_evidence(const causal::LocationPrediction& p) {
  const Evidence e = evidence(p);
  return e.baseline >= kMinExperimentsPerPoint && e.strong_speedups >= kMinSpeedups;
}

std::string evidence_note(const causal::LocationPrediction& p) {
  const Evidence e = evidence(p);
  return fmt::format(
      "{} experiment{} at {} speedup{}, baseline {}: {} the minimum evidence of {} per speedup "
      "and baseline at {} speedups",
      e.experiments, e.experiments == 1 ? "" : "s", e.speedups, e.speedups == 1 ? "" : "s",
      e.baseline, meets_minimum_evidence(p) ? "meets" : "below", kMinExperimentsPerPoint,
      kMinSpeedups);
}

std::string causal_verdict(const causal::LocationPrediction& p, const causal::PredictionPoint& pt) {
  const double gain = pt.program_speedup * 100.0;
  if (gain < 0.5) {
    return fmt::format("speeding up {} by {:.0f}% would not speed up the program measurably",
                       p.location, pt.speedup * 100.0);
  }
  return fmt::format("speeding up {} by {:.0f}% would speed up the program by about {:.0f}%",
                     p.location, pt.speedup * 100.0, gain);
}

std::string causal_verdict(const CausalCurve& c, const causal::PredictionPoint& pt) {
  const auto& measured = static_cast<const causal::LocationPrediction&>(c);
  if (!c.shows_correction()) return causal_verdict(measured, pt);
  causal::PredictionPoint corrected = pt;
  corrected.program_speedup = c.corrected(pt.program_speedup);
  return fmt::format("{} (measured {:.0f}%; {}: corrected for that (Coz's phase correction))",
                     causal_verdict(measured, corrected), pt.program_speedup * 100.0, c.phase.note);
}

}  // namespace cprof::report
