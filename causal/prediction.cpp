#include "causal/prediction.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "causal/neighbour_pairs.h"
#include "causal/rng.h"

namespace cprof::causal {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::optional<double> speedup_of(std::span<const Observation> baseline,
                                 std::span<const Observation> group, Metric metric) {
  const auto p0 = group_metric(baseline, metric);
  const auto ps = group_metric(group, metric);
  if (!p0 || !ps || *p0 <= 0) return std::nullopt;
  return program_speedup(*p0, *ps);
}

void resample(std::span<const Observation> from, std::vector<Observation>& to, Rng& rng) {
  to.resize(from.size());
  for (auto& o : to) o = from[rng.below(from.size())];
}

uint32_t distinct_runs(std::span<const Observation> baseline, std::span<const Observation> group) {
  std::set<uint32_t> runs;
  for (const auto* side : {&baseline, &group}) {
    for (const auto& o : *side) runs.insert(o.run);
  }
  return static_cast<uint32_t>(runs.size());
}

// The two-stage bootstrap's draws: the runs that hold the baseline's or the group's
// experiments, each run's own experiments apart.
struct RunGroups {
  std::vector<std::vector<Observation>> baseline, group;  // by run
};

std::optional<RunGroups> by_run(std::span<const Observation> baseline,
                                std::span<const Observation> group) {
  std::map<uint32_t, size_t> index;
  for (const auto* side : {&baseline, &group}) {
    for (const auto& o : *side) index.emplace(o.run, index.size());
  }
  if (index.size() < kMinRunsToResample) return std::nullopt;
  RunGroups r;
  r.baseline.resize(index.size());
  r.group.resize(index.size());
  for (const auto& o : baseline) r.baseline[index[o.run]].push_back(o);
  for (const auto& o : group) r.group[index[o.run]].push_back(o);
  return r;
}

// One draw of the two-stage bootstrap: as many runs as there are, with replacement, and
// within each drawn run its baseline and group experiments, with replacement.
void resample_runs(const RunGroups& runs, std::vector<Observation>& b, std::vector<Observation>& g,
                   Rng& rng) {
  b.clear();
  g.clear();
  const size_t n = runs.baseline.size();
  for (size_t i = 0; i < n; ++i) {
    const size_t r = rng.below(n);
    const auto& rb = runs.baseline[r];
    const auto& rg = runs.group[r];
    for (size_t k = 0; k < rb.size(); ++k) b.push_back(rb[rng.below(rb.size())]);
    for (size_t k = 0; k < rg.size(); ++k) g.push_back(rg[rng.below(rg.size())]);
  }
}

// End to end: each speedup whose every run has its baseline partner gets the paired
// point instead of the one against every baseline of the directory, which compares runs
// made minutes apart on a machine whose speed drifts (under load one came out at -172%).
void replace_with_pairs(std::vector<PredictionPoint>& points, std::span<const Observation> runs,
                        const PredictionOptions& options) {
  std::vector<Observation> unpaired;
  const auto pairs = pair_runs(runs, unpaired);
  std::map<double, std::vector<RunPair>> by_speedup;
  for (const auto& p : pairs) by_speedup[p.sped_up.speedup].push_back(p);
  std::set<double> incomplete;
  for (const auto& o : unpaired) incomplete.insert(o.speedup);
  for (auto& point : points) {
    const auto it = by_speedup.find(point.speedup);
    if (point.speedup == 0 || it == by_speedup.end() || incomplete.count(point.speedup) != 0) {
      continue;
    }
    point = paired_point(it->second, options);
  }
}

// Throughput where the baselines' rate of progress changes in phases: each speedup gets
// its point from its sped-up experiments whose neighbouring baselines agree
// (causal/neighbour_pairs.h), not from a comparison with the location's own baselines
// wherever they fell; a speedup with fewer than kMinExperimentsPerPoint such units has
// no point. Fills `gap` (sped-up experiments, units, those at changes) and returns true
// when the rate changes in phases.
bool replace_with_neighbours(std::vector<PredictionPoint>& points,
                             std::span<const Observation> experiments,
                             std::span<const Observation> baselines,
                             const PredictionOptions& options, PhasedWithoutUnits& gap) {
  if (!rate_changes_in_phases(baselines)) return false;
  std::map<double, std::vector<Observation>> by_speedup;
  for (const auto& o : experiments) {
    if (o.speedup > 0) by_speedup[o.speedup].push_back(o);
  }
  std::vector<PredictionPoint> kept;
  for (auto& point : points) {
    const auto it = by_speedup.find(point.speedup);
    if (point.speedup == 0 || it == by_speedup.end()) {
      kept.push_back(point);
      continue;
    }
    uint32_t at_changes = 0;
    const auto units = neighbour_units(it->second, baselines, at_changes);
    gap.sped_up += static_cast<uint32_t>(it->second.size());
    gap.units += static_cast<uint32_t>(units.size());
    gap.at_changes += at_changes;
    ++gap.speedups;
    gap.most_units = std::max(gap.most_units, static_cast<uint32_t>(units.size()));
    if (units.size() < kMinExperimentsPerPoint) continue;
    PredictionPoint paired = neighbour_point(units, point.speedup, options);
    if (!std::isfinite(paired.program_speedup)) continue;
    paired.at_rate_changes = at_changes;
    kept.push_back(paired);
  }
  points = std::move(kept);
  return true;
}

}  // namespace

double effective_duration_ns(uint64_t duration_ns, uint64_t delay_ns) {
  return duration_ns > delay_ns ? static_cast<double>(duration_ns - delay_ns) : 0.0;
}

std::optional<double> period_per_visit(std::span<const Observation> group) {
  double time = 0;
  uint64_t visits = 0;
  for (const auto& o : group) {
    time += effective_duration_ns(o.duration_ns, o.delay_ns);
    visits += o.visits;
  }
  if (visits == 0) return std::nullopt;
  return time / static_cast<double>(visits);
}

std::optional<double> little_latency_ns(std::span<const Observation> group) {
  double time = 0;
  double in_flight_time = 0;  // integral of the number in flight over effective time
  uint64_t departures = 0;
  for (const auto& o : group) {
    const double e = effective_duration_ns(o.duration_ns, o.delay_ns);
    time += e;
    in_flight_time += o.mean_in_flight * e;
    departures += o.visits;
  }
  if (departures == 0 || time <= 0) return std::nullopt;
  const double mean_in_flight = in_flight_time / time;           // L
  const double throughput = static_cast<double>(departures) / time;  // lambda
  return mean_in_flight / throughput;                            // W = L / lambda
}

std::optional<double> group_metric(std::span<const Observation> group, Metric metric) {
  return metric == Metric::latency ? little_latency_ns(group) : period_per_visit(group);
}

double program_speedup(double p0, double ps) { return (p0 - ps) / p0; }

void set_percentile_interval(PredictionPoint& point, std::vector<double>& stats,
                             double confidence) {
  std::sort(stats.begin(), stats.end());
  const double tail = (1.0 - confidence) / 2.0;
  point.ci_low = sorted_quantile(stats, tail);
  point.ci_high = sorted_quantile(stats, 1.0 - tail);
}

double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

std::vector<PredictionPoint> predict_curve(std::span<const Observation> experiments,
                                           std::span<const Observation> baseline,
                                           const PredictionOptions& options) {
  std::vector<PredictionPoint> out;
  if (!group_metric(baseline, options.metric)) return out;
  std::map<double, std::vector<Observation>> by_speedup;
  for (const auto& o : experiments) by_speedup[o.speedup].push_back(o);
  Rng rng(options.seed);
  std::vector<Observation> b, g;
  std::vector<double> stats;
  for (const auto& [speedup, group] : by_speedup) {
    const auto point = speedup_of(baseline, group, options.metric);
    if (!point) continue;
    PredictionPoint p{speedup, *point, kNaN, kNaN, static_cast<uint32_t>(group.size())};
    if (speedup > 0 && options.metric != Metric::latency) {
      double delay = 0, duration = 0;
      bool known = true;
      for (const auto& o : group) {
        delay += static_cast<double>(o.delay_ns);
        duration += static_cast<double>(o.duration_ns);
        known &= o.delay_known;
      }
      if (known && duration > 0) p.delay_share = delay / duration;
    }
    if (options.metric != Metric::end_to_end) p.runs = distinct_runs(baseline, group);
    if (baseline.size() >= 2 && group.size() >= 2 && options.bootstrap_samples > 0) {
      stats.clear();
      // End to end each run is one experiment: the runs are what is drawn already.
      const auto runs = options.metric == Metric::end_to_end ? std::nullopt : by_run(baseline, group);
      for (unsigned i = 0; i < options.bootstrap_samples; ++i) {
        if (runs) {
          resample_runs(*runs, b, g, rng);
        } else {
          resample(baseline, b, rng);
          resample(group, g, rng);
        }
        if (const auto s = speedup_of(b, g, options.metric)) stats.push_back(*s);
      }
      set_percentile_interval(p, stats, options.confidence);
    }
    out.push_back(p);
  }
  return out;
}

std::vector<RunPair> pair_runs(std::span<const Observation> runs,
                               std::vector<Observation>& unpaired) {
  std::vector<Observation> by_time(runs.begin(), runs.end());
  std::stable_sort(by_time.begin(), by_time.end(), [](const Observation& a, const Observation& b) {
    return a.time_ns < b.time_ns;
  });
  std::vector<RunPair> pairs;
  std::vector<const Observation*> open;  // 0% runs not paired yet, oldest first
  for (const auto& o : by_time) {
    if (o.speedup == 0) {
      if (o.time_ns != 0) open.push_back(&o);
      continue;
    }
    if (o.time_ns == 0 || open.empty() || open.back()->time_ns >= o.time_ns) {
      unpaired.push_back(o);
      continue;
    }
    pairs.push_back(RunPair{*open.back(), o});
    open.pop_back();
  }
  return pairs;
}

PredictionPoint paired_point(std::span<const RunPair> pairs, const PredictionOptions& options) {
  const auto speedup_of_pairs = [](std::span<const RunPair> some) -> std::optional<double> {
    double base = 0, sped = 0;
    for (const auto& p : some) {
      base += effective_duration_ns(p.baseline.duration_ns, p.baseline.delay_ns);
      sped += effective_duration_ns(p.sped_up.duration_ns, p.sped_up.delay_ns);
    }
    if (base <= 0) return std::nullopt;
    return program_speedup(base, sped);
  };
  PredictionPoint p;
  if (pairs.empty()) return p;
  p.speedup = pairs.front().sped_up.speedup;
  p.program_speedup = speedup_of_pairs(pairs).value_or(kNaN);
  p.experiments = static_cast<uint32_t>(pairs.size());
  double delay = 0, duration = 0;
  bool known = true;
  for (const auto& pair : pairs) {
    delay += static_cast<double>(pair.sped_up.delay_ns);
    duration += static_cast<double>(pair.sped_up.duration_ns);
    known &= pair.sped_up.delay_known;
  }
  if (known && duration > 0) p.delay_share = delay / duration;
  if (pairs.size() >= 2 && options.bootstrap_samples > 0) {
    Rng rng(options.seed);
    std::vector<RunPair> drawn(pairs.size());
    std::vector<double> stats;
    for (unsigned i = 0; i < options.bootstrap_samples; ++i) {
      for (auto& d : drawn) d = pairs[rng.below(pairs.size())];
      if (const auto s = speedup_of_pairs(drawn)) stats.push_back(*s);
    }
    set_percentile_interval(p, stats, options.confidence);
  }
  return p;
}

std::vector<LocationPrediction> predict_all(std::span<const format::ExperimentRecord> records,
                                            const PredictionOptions& options,
                                            std::span<const uint32_t> runs,
                                            std::vector<PhasedWithoutUnits>* phased) {
  // (location, point) -> observations; the point is "" for end-to-end runs.
  struct Series {
    std::vector<Observation> all;
    bool latency = false;
  };
  std::map<std::pair<std::string, std::string>, Series> series;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    const uint32_t run = i < runs.size() ? runs[i] : 0;
    auto add = [&](const std::string& point, uint64_t visits, double in_flight, bool latency) {
      auto& s = series[{r.location, point}];
      s.all.push_back(Observation{r.speedup, r.duration_ns, r.delay_ns, visits, in_flight,
                                  r.period_ns > 0, r.time_ns, run});
      s.latency = s.latency || latency;
    };
    if (r.mode == format::ExperimentMode::end_to_end) {
      add("", 1, 0, false);
      continue;
    }
    for (const auto& d : r.progress) {
      const bool latency = d.begin > 0 || d.end > 0;
      add(d.name, latency ? d.end : d.visits, d.mean_in_flight, latency);
    }
  }
  std::map<std::string, std::vector<Observation>> pooled;  // point -> every 0% experiment
  for (const auto& [key, s] : series) {
    for (const auto& o : s.all) {
      if (o.speedup == 0) pooled[key.second].push_back(o);
    }
  }
  std::set<double> speedups;
  for (const auto& r : records) {
    if (r.speedup > 0) speedups.insert(r.speedup);
  }
  std::vector<LocationPrediction> out;
  for (const auto& [key, s] : series) {
    PredictionOptions opt = options;
    opt.metric = key.second.empty() ? Metric::end_to_end
                 : s.latency        ? Metric::latency
                                    : Metric::throughput;
    std::vector<Observation> own_baseline;
    for (const auto& o : s.all) {
      if (o.speedup == 0) own_baseline.push_back(o);
    }
    const auto& baseline = options.pooled_baseline ? pooled[key.second] : own_baseline;
    auto points = predict_curve(s.all, baseline, opt);
    if (points.empty()) continue;
    if (opt.metric == Metric::end_to_end) replace_with_pairs(points, s.all, opt);
    if (opt.metric == Metric::throughput) {
      PhasedWithoutUnits gap{key.first, key.second};
      const bool in_phases = replace_with_neighbours(points, s.all, pooled[key.second], opt, gap);
      const bool sped_up = std::any_of(points.begin(), points.end(),
                                       [](const PredictionPoint& p) { return p.speedup > 0; });
      if (in_phases && !sped_up && gap.sped_up > 0) {
        if (phased != nullptr) phased->push_back(std::move(gap));
        continue;
      }
    }
    out.push_back(LocationPrediction{key.first, key.second, std::move(points), speedups.size()});
  }
  return out;
}

}  // namespace cprof::causal
