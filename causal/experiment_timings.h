#pragma once
// The experiments' timings, in one place (Coz's profiler.h keeps its own so): the
// defaults of ExperimentConfig, which causal-run's options and the CPROF_CAUSAL_*
// variables override, and the controller thread's own pace. docs/causal.md,
// "Experiments" and "Duration", says why each is what it is.

#include <cstdint>

namespace cprof::causal::timing {

constexpr uint64_t kMillisecond = 1000000;  // ns

// The first experiment's length, and the shortest (--experiment-ms). Coz starts at, and
// never goes below, 0.5 s; shorter experiments, more of them, predict better in runs of
// seconds on a machine whose speed drifts.
inline constexpr uint64_t kFirstExperimentNs = 100 * kMillisecond;
// Doubling the length stops here.
inline constexpr uint64_t kLongestExperimentNs = 64000 * kMillisecond;
// Fewer visits than this at the least-visited active progress point doubles the next
// experiment's length; more than twice as many halves it (Coz: 5).
inline constexpr uint64_t kTargetVisits = 5;
// The pause between two experiments.
inline constexpr uint64_t kCooloffNs = 10 * kMillisecond;
// The warm-up before each measurement, as a share of the measured length
// (ExperimentConfig::warmup_share says why proportional).
inline constexpr double kWarmupShare = 0.2;
// The share of experiments run at 0%, the baselines (Coz: one half).
inline constexpr double kBaselineShare = 0.5;
// The controller thread sleeps in slices this long, so it sees the exit's stop request
// within one slice, and observes the latency points' in-flight counts once per slice.
inline constexpr uint64_t kControllerSliceNs = 10 * kMillisecond;

}  // namespace cprof::causal::timing
