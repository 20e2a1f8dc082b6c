#include "causal/experiment_focus.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "causal/minimum_evidence.h"
#include "causal/prediction.h"

namespace cprof::causal {
namespace {

struct Standing {
  std::string location;
  size_t experiments = 0;
  std::vector<double> rates;  // per experiment: samples with it on the stack per ns
  double rate = 0;            // how much it runs: the lower median of `rates`
  bool meets_evidence = false;
  bool effect = false;  // some point's interval excludes zero
  bool settled = true;  // every curve meets the evidence, every interval within the band
  bool has_curve = false;
};

bool has_interval(const PredictionPoint& p) {
  return !std::isnan(p.ci_low) && !std::isnan(p.ci_high);
}

}  // namespace

FocusChoice choose_focus(std::span<const format::ExperimentRecord> records, size_t keep,
                         std::span<const std::string> previous) {
  std::map<std::string, Standing> by_location;
  for (const auto& r : records) {
    if (r.mode == format::ExperimentMode::end_to_end) continue;
    Standing& s = by_location[r.location];
    s.location = r.location;
    ++s.experiments;
    if (r.duration_ns > 0) {
      s.rates.push_back(static_cast<double>(r.selected_samples) /
                        static_cast<double>(r.duration_ns));
    }
  }
  // How much it runs: the lower median over its experiments of the samples on the stack
  // per second (a location drawn once tells as much as one drawn often; the draw counts
  // are too few to rank by). The median, not the pooled rate: zstd's table clearing ran
  // in one burst, 98 samples in its first experiment and none in the 14 after, and the
  // pooled rate kept it first while its experiments measured nothing.
  for (auto& [name, s] : by_location) {
    if (s.rates.empty()) continue;
    const auto middle = s.rates.begin() + static_cast<std::ptrdiff_t>((s.rates.size() - 1) / 2);
    std::nth_element(s.rates.begin(), middle, s.rates.end());
    s.rate = *middle;
  }
  // Bootstrap intervals, few resamples: this ranks, it does not report.
  for (const auto& curve : predict_all(records, {.bootstrap_samples = 200})) {
    auto it = by_location.find(curve.location);
    if (it == by_location.end()) continue;
    Standing& s = it->second;
    const bool meets = meets_minimum_evidence(curve);
    bool all_within = meets;
    bool effect = false;
    for (const auto& p : curve.points) {
      if (p.speedup <= 0) continue;
      if (!has_interval(p)) {
        all_within = false;
        continue;
      }
      effect |= p.ci_low > 0 || p.ci_high < 0;
      all_within &= p.ci_low >= -kSettledBand && p.ci_high <= kSettledBand;
    }
    // A location has a curve per progress point: it meets the evidence if one does, has
    // an effect if one shows it, and is settled only if every one is.
    s.has_curve = true;
    s.meets_evidence |= meets;
    s.effect |= effect && meets;
    s.settled &= all_within;
  }

  FocusChoice out;
  const std::set<std::string> allowed(previous.begin(), previous.end());
  std::vector<const Standing*> ranked;
  for (const auto& [name, s] : by_location) {
    out.with_enough_evidence += s.meets_evidence;
    out.with_effect += s.effect;
    if (!allowed.empty() && allowed.count(name) == 0) continue;
    if (s.has_curve && s.settled) {
      out.settled.push_back(name);
      continue;
    }
    ranked.push_back(&s);
  }
  std::sort(ranked.begin(), ranked.end(), [&](const Standing* a, const Standing* b) {
    if (a->effect != b->effect) return a->effect;
    if (a->rate != b->rate) return a->rate > b->rate;
    return a->location < b->location;
  });
  for (size_t i = 0; i < ranked.size() && i < keep; ++i)
    out.locations.push_back(ranked[i]->location);
  return out;
}

}  // namespace cprof::causal
