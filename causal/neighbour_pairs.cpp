#include "causal/neighbour_pairs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "causal/rng.h"

namespace cprof::causal {
namespace {

// Time per visit of one experiment; nullopt without a visit.
std::optional<double> time_per_visit(const Observation& o) {
  if (o.visits == 0) return std::nullopt;
  return effective_duration_ns(o.duration_ns, o.delay_ns) / static_cast<double>(o.visits);
}

// The baselines with a time and a visit, by run, in time order.
std::map<uint32_t, std::vector<Observation>> timed_by_run(std::span<const Observation> baselines) {
  std::map<uint32_t, std::vector<Observation>> runs;
  for (const auto& o : baselines) {
    if (o.time_ns != 0 && o.visits > 0 && time_per_visit(o).value_or(0) > 0) {
      runs[o.run].push_back(o);
    }
  }
  for (auto& [run, list] : runs) {
    std::sort(list.begin(), list.end(),
              [](const Observation& a, const Observation& b) { return a.time_ns < b.time_ns; });
  }
  return runs;
}

// 1 - sum(E_x) / sum(visits_x * local p0); nullopt when nothing was visited.
std::optional<double> speedup_of_units(std::span<const NeighbourUnit> units) {
  double sped = 0;
  double expected = 0;  // the baseline program's time for the same visits
  for (const auto& u : units) {
    const double e_ab = effective_duration_ns(u.before.duration_ns, u.before.delay_ns) +
                        effective_duration_ns(u.after.duration_ns, u.after.delay_ns);
    const double p0 = e_ab / static_cast<double>(u.before.visits + u.after.visits);
    sped += effective_duration_ns(u.sped_up.duration_ns, u.sped_up.delay_ns);
    expected += static_cast<double>(u.sped_up.visits) * p0;
  }
  if (expected <= 0) return std::nullopt;
  return 1.0 - sped / expected;
}

}  // namespace

bool rate_changes_in_phases(std::span<const Observation> baselines) {
  double sum = 0, sum_sq = 0, step_sq = 0;
  size_t n = 0, steps = 0;
  for (const auto& [run, list] : timed_by_run(baselines)) {
    double previous = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      const double x = std::log(*time_per_visit(list[i]));
      sum += x;
      sum_sq += x * x;
      ++n;
      if (i > 0) {
        step_sq += (x - previous) * (x - previous);
        ++steps;
      }
      previous = x;
    }
  }
  if (steps < kPhaseTestPairs) return false;
  const double mean = sum / static_cast<double>(n);
  const double variance = std::max(0.0, sum_sq / static_cast<double>(n) - mean * mean);
  if (std::sqrt(variance) < kPhasedSpread) return false;
  const double semivariance = step_sq / (2.0 * static_cast<double>(steps));
  return semivariance < kPhasedSemivariance * variance;
}

std::vector<NeighbourUnit> neighbour_units(std::span<const Observation> group,
                                           std::span<const Observation> baselines,
                                           uint32_t& at_changes) {
  const auto runs = timed_by_run(baselines);
  std::vector<NeighbourUnit> units;
  at_changes = 0;
  for (const auto& x : group) {
    const auto run = runs.find(x.run);
    if (x.time_ns == 0 || x.visits == 0 || run == runs.end()) continue;
    const auto& list = run->second;
    const auto after =
        std::upper_bound(list.begin(), list.end(), x.time_ns,
                         [](uint64_t t, const Observation& o) { return t < o.time_ns; });
    if (after == list.begin() || after == list.end()) continue;  // no neighbour on a side
    const Observation& before = *(after - 1);
    const double a = *time_per_visit(before);
    const double b = *time_per_visit(*after);
    if (std::max(a, b) > kSteadyRatio * std::min(a, b)) {
      ++at_changes;
      continue;
    }
    units.push_back(NeighbourUnit{x, before, *after});
  }
  return units;
}

PredictionPoint neighbour_point(std::span<const NeighbourUnit> units, double speedup,
                                const PredictionOptions& options) {
  PredictionPoint p;
  p.speedup = speedup;
  p.program_speedup = speedup_of_units(units).value_or(std::numeric_limits<double>::quiet_NaN());
  p.experiments = static_cast<uint32_t>(units.size());
  p.neighbour_units = p.experiments;
  double delay = 0, duration = 0;
  bool known = true;
  std::map<uint32_t, std::vector<NeighbourUnit>> by_run;
  for (const auto& u : units) {
    delay += static_cast<double>(u.sped_up.delay_ns);
    duration += static_cast<double>(u.sped_up.duration_ns);
    known &= u.sped_up.delay_known;
    by_run[u.sped_up.run].push_back(u);
  }
  if (known && duration > 0) p.delay_share = delay / duration;
  p.runs = static_cast<uint32_t>(by_run.size());
  if (units.size() < 2 || options.bootstrap_samples == 0) return p;
  std::vector<std::vector<NeighbourUnit>> runs;
  runs.reserve(by_run.size());
  for (auto& [run, list] : by_run) runs.push_back(std::move(list));
  const bool runs_first = runs.size() >= kMinRunsToResample;
  Rng rng(options.seed);
  std::vector<NeighbourUnit> drawn;
  std::vector<double> stats;
  stats.reserve(options.bootstrap_samples);
  for (unsigned i = 0; i < options.bootstrap_samples; ++i) {
    drawn.clear();
    if (runs_first) {
      for (size_t r = 0; r < runs.size(); ++r) {
        const auto& run = runs[rng.below(runs.size())];
        for (size_t k = 0; k < run.size(); ++k) drawn.push_back(run[rng.below(run.size())]);
      }
    } else {
      for (size_t k = 0; k < units.size(); ++k) drawn.push_back(units[rng.below(units.size())]);
    }
    if (const auto s = speedup_of_units(drawn)) stats.push_back(*s);
  }
  set_percentile_interval(p, stats, options.confidence);
  return p;
}

}  // namespace cprof::causal
