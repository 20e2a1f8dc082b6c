#include "causal/experiment.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "causal/prediction.h"

namespace cprof::causal {

std::vector<double> default_speedups() {
  std::vector<double> v;
  for (int p = 0; p <= 100; p += 5) v.push_back(p / 100.0);
  return v;
}

std::vector<double> few_speedups() {
  std::string ignored;
  return parse_speedups(kFewSpeedups, ignored).value_or(std::vector<double>{0.5});
}

std::optional<std::vector<double>> parse_speedups(std::string_view text, std::string& error) {
  std::vector<double> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    double percent = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), percent);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() ||
        !(percent >= 0 && percent <= 100)) {
      error = "--speedups: '" + std::string(item) +
              "' is not a percentage from 0 to 100 (example: --speedups 0,10,25,50)";
      return std::nullopt;
    }
    out.push_back(percent / 100.0);
    pos = comma + 1;
  }
  return out;
}

SpeedupSchedule::SpeedupSchedule(const ExperimentConfig& config)
    : speedups_(config.speedups.empty() ? default_speedups() : config.speedups),
      fixed_(config.fixed_speedup),
      baseline_share_(config.baseline_share) {
  if (config.speedups.empty()) first_ = few_speedups();
}

double SpeedupSchedule::next(Rng& rng, uint32_t location) {
  // Draw both numbers every time, so the stream does not depend on which branch ran.
  const double u = rng.unit();
  const uint64_t pick = rng.below(speedups_.size());
  Drawn& d = drawn_[location];
  // Baselines this location should have after this experiment: `due`, rounded either way.
  const double due = baseline_share_ * static_cast<double>(d.experiments + 1);
  const double b = static_cast<double>(d.baselines);
  bool baseline = false;
  if (b < std::floor(due)) {
    baseline = true;  // behind: this one must be
  } else if (b < std::ceil(due)) {
    baseline = u < due - b;  // either way keeps the balance; the expected count stays due
  }
  ++d.experiments;
  if (baseline) {
    ++d.baselines;
    return 0.0;
  }
  if (fixed_) return *fixed_;
  // The first levels still short of a point's evidence, if any: one of them, from the same
  // draw (21 default levels spread evenly over 3; no extra number, so a seed's stream of
  // locations stays what it was).
  d.at_first.resize(first_.size());
  const auto short_of = static_cast<size_t>(std::count_if(
      d.at_first.begin(), d.at_first.end(), [](uint32_t n) { return n < kMinExperimentsPerPoint; }));
  for (size_t i = 0, nth = short_of == 0 ? 0 : pick % short_of; i < first_.size(); ++i) {
    if (d.at_first[i] >= kMinExperimentsPerPoint) continue;
    if (nth-- == 0) {
      ++d.at_first[i];
      return first_[i];
    }
  }
  const double speedup = speedups_[pick];
  for (size_t i = 0; i < first_.size(); ++i) d.at_first[i] += first_[i] == speedup ? 1 : 0;
  return speedup;
}

ExperimentController::ExperimentController(ExperimentConfig config, const LocationTable& table,
                                           std::vector<uint32_t> fixed,
                                           const RecentLocations* recent,
                                           DelayAccounting& delays, ProgressRegistry& progress,
                                           Clock clock)
    : config_(std::move(config)),
      table_(table),
      fixed_(std::move(fixed)),
      recent_(recent),
      delays_(delays),
      progress_(progress),
      clock_(clock),
      rng_(config_.seed),
      schedule_(config_),
      duration_ns_(std::clamp(config_.initial_duration_ns, config_.min_duration_ns,
                              config_.max_duration_ns)) {}

std::optional<ExperimentPlan> ExperimentController::plan_next() {
  const Location* location = nullptr;
  if (!fixed_.empty()) {
    // Locations in a library the program has not loaded yet (dlopen) wait for it. With
    // every one loaded the draw is the one over fixed_ itself.
    std::vector<uint32_t> loaded;
    for (const uint32_t id : fixed_) {
      if (table_.is_loaded(id)) loaded.push_back(id);
    }
    if (!loaded.empty()) location = &table_.at(loaded[rng_.below(loaded.size())]);
  } else if (recent_ != nullptr) {
    const auto ids = recent_->snapshot();
    if (!ids.empty()) {
      const uint32_t id = ids[rng_.below(ids.size())];
      if (id < table_.size()) location = &table_.at(id);
    }
  }
  if (location == nullptr) return std::nullopt;
  const double share = std::max(0.0, config_.warmup_share);
  const auto warmup_ns = static_cast<uint64_t>(share * static_cast<double>(duration_ns_));
  return ExperimentPlan{location, schedule_.next(rng_, location->id), duration_ns_, warmup_ns};
}

void ExperimentController::begin(const ExperimentPlan& plan) {
  plan_ = plan;
  // Publish the location before delays start: a selected sample then always finds it.
  selected_.store(plan.location, std::memory_order_release);
  delays_.begin_experiment(plan.speedup, config_.period_ns);
  running_ = true;
  start_measuring();
}

void ExperimentController::start_measuring() {
  start_counts_ = progress_.counts();
  in_flight_sum_.assign(start_counts_.size(), 0.0);
  observations_ = 0;
  observe_in_flight();
  start_ns_ = clock_.now_ns();
  // The global count and the selected samples go on from the warm-up: the measured
  // window's share is the difference from here to finish(). (Delays inserted just before
  // this point and paid just after it are matched by those inserted just before finish()
  // and paid after it.)
  start_delay_ns_ = delays_.global_ns();
  start_selected_ = delays_.selected_samples();
}

void ExperimentController::observe_in_flight() {
  const auto counts = progress_.counts();
  if (in_flight_sum_.size() < counts.size()) in_flight_sum_.resize(counts.size(), 0.0);
  for (size_t i = 0; i < counts.size(); ++i) {
    // end can run ahead of begin for a moment (two relaxed counters read one by one).
    const double in_flight = counts[i].begin > counts[i].end
                                 ? static_cast<double>(counts[i].begin - counts[i].end)
                                 : 0.0;
    in_flight_sum_[i] += in_flight;
  }
  ++observations_;
}

format::ExperimentRecord ExperimentController::finish() {
  const uint64_t end_delay = delays_.end_experiment();
  selected_.store(nullptr, std::memory_order_release);
  const uint64_t end_ns = clock_.now_ns();
  const uint64_t selected_samples = delays_.selected_samples() - start_selected_;
  observe_in_flight();
  const auto counts = progress_.counts();
  running_ = false;

  format::ExperimentRecord r;
  r.time_ns = start_ns_;
  r.location = plan_.location->name;
  r.location_id = plan_.location->id;
  r.speedup = plan_.speedup;
  r.duration_ns = end_ns - start_ns_;
  r.delay_ns = end_delay - start_delay_ns_;
  r.period_ns = config_.period_ns;
  r.selected_samples = selected_samples;
  r.mode = format::ExperimentMode::progress;
  for (size_t i = 0; i < counts.size(); ++i) {
    const ProgressCounts before = i < start_counts_.size() ? start_counts_[i] : ProgressCounts{};
    format::ProgressDelta d;
    d.name = progress_.at(i)->name();
    d.visits = counts[i].visits - before.visits;
    d.begin = counts[i].begin - before.begin;
    d.end = counts[i].end - before.end;
    d.mean_in_flight = observations_ > 0 && i < in_flight_sum_.size()
                           ? in_flight_sum_[i] / static_cast<double>(observations_)
                           : 0.0;
    r.progress.push_back(std::move(d));
  }
  adapt_duration(r);
  return r;
}

void ExperimentController::adapt_duration(const format::ExperimentRecord& r) {
  // Coz's rule: the least-visited progress point decides. Points never visited in any
  // experiment (a point in code that does not run) are left out, or they would double
  // the duration for ever.
  if (ever_active_.size() < r.progress.size()) ever_active_.resize(r.progress.size(), false);
  uint64_t least = std::numeric_limits<uint64_t>::max();
  for (size_t i = 0; i < r.progress.size(); ++i) {
    const uint64_t visits = r.progress[i].visits + r.progress[i].end;
    if (visits > 0) ever_active_[i] = true;
    if (ever_active_[i]) least = std::min(least, visits);
  }
  if (least == std::numeric_limits<uint64_t>::max()) least = 0;  // nothing counts yet
  if (least < config_.target_visits) {
    duration_ns_ = std::min(duration_ns_ * 2, config_.max_duration_ns);
  } else if (least > 2 * config_.target_visits) {
    // At least halved, as Coz does; where the experiment saw many times the visits it
    // needs (a program whose slow phase made the experiments long has entered a fast
    // one), straight to the length that gives about twice the target at the rate it
    // measured. Halving from 640 ms to 10 ms took six experiments, 1.3 s of experiments
    // far longer than needed, each likely to straddle the next change of phase.
    const auto scaled = static_cast<uint64_t>(static_cast<double>(duration_ns_) *
                                              static_cast<double>(2 * config_.target_visits) /
                                              static_cast<double>(least));
    duration_ns_ = std::max(std::min(duration_ns_ / 2, scaled), config_.min_duration_ns);
  }
}

std::optional<format::ExperimentRecord> ExperimentController::run_one(Sleeper sleeper,
                                                                      unsigned slices) {
  const auto plan = plan_next();
  if (!plan) {
    sleeper.sleep_ns(config_.cooloff_ns);
    return std::nullopt;
  }
  begin(*plan);
  if (plan->warmup_ns > 0) {
    sleeper.sleep_ns(plan->warmup_ns);
    start_measuring();
  }
  slices = std::max(1u, slices);
  for (unsigned i = 0; i < slices; ++i) {
    const uint64_t part = plan->duration_ns / slices + (i == 0 ? plan->duration_ns % slices : 0);
    sleeper.sleep_ns(part);
    if (i + 1 < slices) observe_in_flight();
  }
  auto record = finish();
  sleeper.sleep_ns(config_.cooloff_ns);
  return record;
}

}  // namespace cprof::causal
