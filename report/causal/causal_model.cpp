#include "report/causal/causal_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "causal/progress.h"
#include "report/load/process_profile.h"

namespace cprof::report {

CausalModel build_causal_model(const std::vector<ProcessProfile>& processes) {
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
  causal::PredictionOptions options;
  m.predictions = causal::predict_all(all, options);
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

std::string causal_verdict(const causal::LocationPrediction& p, const causal::PredictionPoint& pt) {
  const double gain = pt.program_speedup * 100.0;
  if (gain < 0.5) {
    return fmt::format("speeding up {} by {:.0f}% would not speed up the program measurably",
                       p.location, pt.speedup * 100.0);
  }
  return fmt::format("speeding up {} by {:.0f}% would speed up the program by about {:.0f}%",
                     p.location, pt.speedup * 100.0, gain);
}

}  // namespace cprof::report
