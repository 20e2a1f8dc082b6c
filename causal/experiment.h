#pragma once
// The experiment controller (docs/causal.md "Experiments"): one experiment at a time, it
// picks a location and a virtual speedup, starts the delay accounting, lets the program
// run for a warm-up and then for the experiment's duration, and records what happened
// in the latter. It never reads a clock
// or sleeps on its own: the Clock and the Sleeper are injected, and so is the seed, so a
// schedule is repeatable and the tests need no real time.
//
// How the runtime uses it:
//   controller thread:   while (running) controller.run_one(sleeper) -> write the record
//   sampling handler:    if (const Location* l = controller.selected();
//                            l && stack_hits(*l, frames)) delays.on_sample_in_selected(t);
//                        if (auto* l = table.first_in_stack(frames)) recent.note(l->id);
//                        delays.pay(t);
//
// Signal-safety contract: selected() is async-signal-safe (one atomic load; the Location
// it returns stays valid for the controller's lifetime). Every other member is for the
// controller thread only (it allocates).

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "causal/clock.h"
#include "causal/delays.h"
#include "causal/experiment_timings.h"
#include "causal/location.h"
#include "causal/progress_registry.h"
#include "causal/rng.h"
#include "format/records.h"

namespace cprof::causal {

struct ExperimentConfig {
  // Virtual speedups to draw from, as fractions (0.25 = 25%). Empty: 0, 0.05, ..., 1.
  std::vector<double> speedups;
  // Every non-baseline experiment uses this speedup (--fixed-speedup).
  std::optional<double> fixed_speedup;
  // Share of experiments run at 0%, the baselines.
  double baseline_share = timing::kBaselineShare;
  uint64_t seed = 0;
  uint64_t period_ns = 1000000;  // the sampling period, recorded with each experiment
  // The length: first, shortest and longest (experiment_timings.h).
  uint64_t initial_duration_ns = timing::kFirstExperimentNs;
  uint64_t min_duration_ns = timing::kFirstExperimentNs;    // shrinking stops here
  uint64_t max_duration_ns = timing::kLongestExperimentNs;  // doubling stops here
  // Fewer visits than this at the least-visited active progress point: double the
  // duration. More than twice as many: halve it.
  uint64_t target_visits = timing::kTargetVisits;
  uint64_t cooloff_ns = timing::kCooloffNs;  // pause between experiments
  // Warm-up before measuring, as a share of the experiment's (measured) duration: the
  // experiment runs at its speedup, delays and all, but is not measured yet, so state
  // the previous experiment left (a full queue, a backlog) drains first. Proportional,
  // not fixed: the duration grows when progress is rare, that is when items, and so the
  // time to drain a queue of them, are long. 0.2 covers the drain of the pipeline in
  // docs/causal.md "Experiments" (30-50 ms) at the 250 ms experiments the accuracy
  // runs use, for 20% more time per experiment. 0: no warm-up.
  double warmup_share = timing::kWarmupShare;
};

// The default speedup list: 0% to 100% in steps of 5%.
std::vector<double> default_speedups();
// The list runs draw from when the user chose none and evidence is thin: an automatic run
// that focuses over several runs, and the pairs of an end-to-end run. Three levels each
// gather their experiments sooner than twenty.
inline constexpr const char* kFewSpeedups = "25,50,75";
// kFewSpeedups as fractions.
std::vector<double> few_speedups();
// Parses --speedups: comma-separated percentages in [0, 100] ("0,10,25.5"). On error
// returns nullopt and sets `error` to a one-line message.
std::optional<std::vector<double>> parse_speedups(std::string_view text, std::string& error);

// Draws speedups: a baseline (0) for a share baseline_share of each location's
// experiments, otherwise the fixed speedup or a uniform pick from the list (which may
// itself contain 0, as Coz's does). Balanced per location, in random order: after n
// experiments at a location, its baselines number floor(n * share) or ceil(n * share),
// and an experiment is a baseline at random only where both are still possible (with a
// share of 1/2: pairs, each a baseline and a sped-up experiment in either order). Coz
// draws each one independently, and a short run could end with none or nearly all of a
// location's experiments baselines (8 of 8 sped up: 1 run in 256), which wastes them: a
// prediction's error goes as 1/baselines + 1/sped-up.
// With the default list, a location's sped-up experiments take kFewSpeedups first, until
// each of those has kMinExperimentsPerPoint: drawn from 20 levels, the 17 sped-up
// experiments of two 7-Zip runs (a progress point 40 times a second, so 200 ms
// experiments) fell on 11 speedups and no curve had the minimum evidence; three levels
// reach it with 9, and the rest of the list fills the curve in after.
class SpeedupSchedule {
 public:
  SpeedupSchedule(const ExperimentConfig& config);
  double next(Rng& rng, uint32_t location = 0);

 private:
  struct Drawn {
    uint64_t experiments = 0;
    uint64_t baselines = 0;
    std::vector<uint32_t> at_first;  // experiments at each of first_
  };
  std::vector<double> first_;  // kFewSpeedups with the default list, else empty
  std::vector<double> speedups_;
  std::optional<double> fixed_;
  double baseline_share_;
  std::unordered_map<uint32_t, Drawn> drawn_;  // per location id
};

struct ExperimentPlan {
  const Location* location = nullptr;
  double speedup = 0;
  uint64_t duration_ns = 0;  // measured, warm-up excluded
  uint64_t warmup_ns = 0;
};

class ExperimentController {
 public:
  // `fixed` lists the ids (in `table`) of --line/--function locations; empty means
  // automatic selection among the locations `recent` has seen. `table`, `recent`,
  // `delays` and `progress` must outlive the controller.
  ExperimentController(ExperimentConfig config, const LocationTable& table,
                       std::vector<uint32_t> fixed, const RecentLocations* recent,
                       DelayAccounting& delays, ProgressRegistry& progress, Clock clock);

  // The next experiment's location, speedup, warm-up and duration; nullopt while there is
  // nothing to choose from (automatic mode before any in-scope sample).
  std::optional<ExperimentPlan> plan_next();
  // Starts it: publishes the location to the handler, starts inserting delays and starts
  // measuring (as start_measuring()). With a warm-up, call start_measuring() again when
  // it is over: the measurement then starts there.
  void begin(const ExperimentPlan& plan);
  // (Re)starts the measured window: snapshots the progress counts, the clock, the delay
  // count and the selected-sample count, and restarts the in-flight observations. The
  // delays go on as they were: the warm-up runs at the experiment's speedup too.
  void start_measuring();
  // During an experiment: adds an observation of the latency points' in-flight counts
  // (start_measuring and finish observe too; more observations sharpen Little's law).
  void observe_in_flight();
  // Ends the running experiment, adapts the next duration and returns its record: the
  // measured window only (duration, delay inserted, selected samples, progress).
  format::ExperimentRecord finish();
  // plan_next, begin, sleep the warm-up, start_measuring, sleep the duration, finish,
  // then sleep the cool-off. nullopt (after the cool-off) when there was nothing to
  // choose from. `slices` > 1 splits the measured wait to observe in-flight counts in
  // between.
  std::optional<format::ExperimentRecord> run_one(Sleeper sleeper, unsigned slices = 1);

  // The location the running experiment speeds up, or null. Async-signal-safe.
  const Location* selected() const { return selected_.load(std::memory_order_acquire); }
  bool running() const { return running_; }
  uint64_t next_duration_ns() const { return duration_ns_; }
  const ExperimentConfig& config() const { return config_; }

 private:
  void adapt_duration(const format::ExperimentRecord& record);

  ExperimentConfig config_;
  const LocationTable& table_;
  std::vector<uint32_t> fixed_;
  const RecentLocations* recent_;
  DelayAccounting& delays_;
  ProgressRegistry& progress_;
  Clock clock_;
  Rng rng_;
  SpeedupSchedule schedule_;
  uint64_t duration_ns_;

  std::atomic<const Location*> selected_{nullptr};
  bool running_ = false;
  ExperimentPlan plan_{};
  uint64_t start_ns_ = 0;
  uint64_t start_delay_ns_ = 0;
  uint64_t start_selected_ = 0;  // delays_.selected_samples() at the measurement's start
  std::vector<ProgressCounts> start_counts_;
  std::vector<double> in_flight_sum_;  // per point, over observations
  uint64_t observations_ = 0;
  std::vector<bool> ever_active_;      // per point: visited in some experiment
};

}  // namespace cprof::causal
