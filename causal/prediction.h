#pragma once
// The causal predictions (docs/causal.md "Predictions"): pure functions over experiment
// records, used by the report.
//
//   effective duration  E = wall time - delay inserted (the virtual program's time)
//   throughput          p = sum(E) / sum(visits) over the experiments of one
//                       (location, speedup): time per progress visit
//   latency             W = L / lambda (Little's law), lambda = sum(departures) / sum(E),
//                       L = the mean number in flight, weighted by E
//   end-to-end          p = sum(E) / runs: whole-run time, one experiment per run
//   program speedup     (p0 - ps) / p0, p0 from the 0% experiments (the baseline)
//   confidence interval percentile bootstrap: the experiments of the baseline and of the
//                       speedup are resampled with replacement (seeded), the speedup is
//                       recomputed, and the (1-c)/2 and (1+c)/2 quantiles are the bounds.
//                       With experiments from 3 or more runs (processes), two stages:
//                       runs first, then the experiments of each run drawn, so that
//                       what moves a whole run (the machine's state while it ran) widens
//                       the interval as much as it moves the prediction.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::causal {

// The fewest experiments a prediction point rests on, at its speedup and at the baseline
// each, before the report trusts it (report/causal/causal_model.h); causal-run says when
// a run's experiments fall short of it.
inline constexpr uint32_t kMinExperimentsPerPoint = 3;

// One experiment as seen from one progress point.
struct Observation {
  double speedup = 0;
  uint64_t duration_ns = 0;
  uint64_t delay_ns = 0;
  uint64_t visits = 0;        // throughput visits; latency: departures; end-to-end: 1
  double mean_in_flight = 0;  // latency only
  // The record says what delay it inserted (ours do; a Coz profile's durations have the
  // delay taken out already and no period): else no delay bound is computed.
  bool delay_known = true;
  uint64_t time_ns = 0;  // when it began (pairs end-to-end runs); 0: not known
  uint32_t run = 0;      // which run (process) it came from: the bootstrap's first stage
};

enum class Metric { throughput, latency, end_to_end };

// Wall time minus the delay inserted, never below 0.
double effective_duration_ns(uint64_t duration_ns, uint64_t delay_ns);

// Time per progress visit (or per run) of a group of experiments: sum(E) / sum(visits).
// nullopt when nothing was visited.
std::optional<double> period_per_visit(std::span<const Observation> group);
// Mean latency by Little's law; nullopt with no departures.
std::optional<double> little_latency_ns(std::span<const Observation> group);
// p (throughput, end-to-end) or W (latency) of a group.
std::optional<double> group_metric(std::span<const Observation> group, Metric metric);

// (p0 - ps) / p0: 0.2 means the program would be 20% faster.
double program_speedup(double p0, double ps);
// Quantile q of sorted values, linear between neighbours; NaN when there are none.
double sorted_quantile(const std::vector<double>& sorted, double q);
struct PredictionPoint;
// The percentile interval of `stats` (a bootstrap's values; sorted here) at `confidence`
// into point.ci_low and point.ci_high.
void set_percentile_interval(PredictionPoint& point, std::vector<double>& stats, double confidence);

struct PredictionOptions {
  Metric metric = Metric::throughput;
  // false: the baseline of a location is its own 0% experiments (Coz). true: every 0%
  // experiment of every location (they are the same unmodified program).
  bool pooled_baseline = false;
  unsigned bootstrap_samples = 1000;
  double confidence = 0.95;
  uint64_t seed = 1;
};

struct PredictionPoint {
  double speedup = 0;
  double program_speedup = 0;
  // NaN (the default) when either group has fewer than 2 experiments
  double ci_low = std::numeric_limits<double>::quiet_NaN();
  double ci_high = std::numeric_limits<double>::quiet_NaN();
  uint32_t experiments = 0;
  // The delays the point's experiments inserted, as a share of their wall time
  // (sum delay / sum duration); NaN for latency points and baselines. A throughput or
  // whole-run speedup can exceed it only if the sped-up experiments made progress faster
  // than the baselines in real time, which delays cannot cause (docs/causal.md,
  // "Predictions"): the tightest bound on what the method can measure.
  double delay_share = std::numeric_limits<double>::quiet_NaN();
  // The runs (processes) the point's and its baseline's experiments came from. Below
  // kMinRunsToResample the interval counts the spread between the experiments of one or
  // two runs, not the drift between runs (docs/causal.md, "Experiments from several runs:
  // runs first"). 0 end to end, where each run is one experiment and runs are what is drawn.
  uint32_t runs = 0;
  // Where the program's rate of progress changes in phases (causal/neighbour_pairs.h):
  // the sped-up experiments compared with their neighbouring baselines (0: the pooled
  // estimate), and those left out because a phase changed between their neighbours.
  uint32_t neighbour_units = 0;
  uint32_t at_rate_changes = 0;
};

// End to end, a sped-up run and the baseline run just before it of the same location
// (causal-run runs them as a pair: docs/causal.md, "Paired runs").
struct RunPair {
  Observation baseline;
  Observation sped_up;
};
// Pairs each sped-up run of `runs` (one location's, any order) with the latest 0% run of
// them that began before it and is not paired yet. Runs without a time are not paired.
// `unpaired` gets the sped-up runs left without a partner.
std::vector<RunPair> pair_runs(std::span<const Observation> runs,
                               std::vector<Observation>& unpaired);

// The point at one speedup from its pairs: 1 - sum(E sped up) / sum(E baseline), the
// bootstrap resampling pairs, so that the drift of the machine between pairs widens the
// interval while the drift within a pair (a minute apart at most) cancels.
PredictionPoint paired_point(std::span<const RunPair> pairs, const PredictionOptions& options);

// The fewest runs among a point's experiments for the two-stage bootstrap; with fewer,
// a first stage would draw among too few runs to say anything (2 runs: 3 outcomes).
inline constexpr size_t kMinRunsToResample = 3;

// The curve of one location: a point per distinct speedup (ascending), from that
// speedup's experiments and the baseline's. Empty without a usable baseline.
std::vector<PredictionPoint> predict_curve(std::span<const Observation> experiments,
                                           std::span<const Observation> baseline,
                                           const PredictionOptions& options);

struct LocationPrediction {
  std::string location;
  std::string progress_point;  // "" in end-to-end mode
  std::vector<PredictionPoint> points;
  // Distinct non-zero speedups among all the records predicted with it (every location):
  // 1 for a --fixed-speedup run, where no curve can have more. 0: not known.
  size_t speedups_in_run = 0;
};

// A location of a program whose rate of progress changes in phases (neighbour_pairs.h)
// with sped-up experiments but no speedup with kMinExperimentsPerPoint of them whose
// neighbouring baselines agree: compared with its own baselines instead, wherever they
// fell, its point would measure which phase each experiment ran in (speedtest1: "would
// slow the program down by about 1068387%" from one experiment and one baseline), so it
// has no curve. Points of a curve that lack the units likewise have no value and are left
// out of it.
struct PhasedWithoutUnits {
  std::string location;
  std::string progress_point;
  uint32_t sped_up = 0;     // its sped-up experiments
  uint32_t units = 0;       // of them, with neighbouring baselines that agree
  uint32_t at_changes = 0;  // of them, left out at a change of phase
  uint32_t speedups = 0;    // the speedups they were at
  uint32_t most_units = 0;  // the most units one speedup had
};

// Every (location, progress point) curve from a run's experiment records (any number
// of processes and runs, in any order). End-to-end records are predicted from
// whole-run time; the others from each progress point (latency points, those with
// begin/end counts, by Little's law; options.metric is ignored here). Sorted by
// location, then progress point. `runs`, when not empty, holds the run (process) of each
// record, for the bootstrap's first stage.
// `phased`, when given, receives the locations left without a curve for want of units.
std::vector<LocationPrediction> predict_all(std::span<const format::ExperimentRecord> records,
                                            const PredictionOptions& options,
                                            std::span<const uint32_t> runs = {},
                                            std::vector<PhasedWithoutUnits>* phased = nullptr);

}  // namespace cprof::causal
