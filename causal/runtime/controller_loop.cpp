// The causal runtime's controller thread: waits for the program's first progress visit,
// then runs one experiment after another (causal/experiment.h) until the exit asks it to
// stop, queueing each experiment's record.
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#include "causal/experiment_timings.h"
#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/real_calls.h"
#include "causal/runtime/syscall_dispatch.h"
#include "sampler/runtime/sanitizer_stack.h"

namespace cprof::causal {

void* CausalRuntime::controller_main(void* self) {
  sampler::unpoison_own_stack();  // started past the sanitizer's interceptor
  pthread_setname_np(pthread_self(), "cprof-causal");
  static_cast<CausalRuntime*>(self)->controller_loop();
  return nullptr;
}

void CausalRuntime::controller_loop() {
  const Sleeper sleeper = real_sleeper();
  if (!resolve_for_.empty() && !resolve_exec_locations()) return;
  ExperimentController* const controller = this->controller();
  constexpr uint64_t kSliceNs = timing::kControllerSliceNs;
  // No experiment before the program's first progress visit: what runs before it (start-up,
  // reading input) is not the work the points count, and an experiment over it measures a
  // rate the program never keeps (an OpenMP program's first 100 ms had 6 rounds where the
  // next ones had 120, and turned its prediction negative). A forked child inherits its
  // parent's counts and starts at once.
  // In an MPI job, the first visit in any rank of the host starts every rank's experiments
  // (a rank may have no progress point of its own).
  JobShared* const job = job_ ? job_->get() : nullptr;
  const auto progress_started = [this, job] {
    sync_counted_points();
    for (const ProgressCounts& c : progress_.counts()) {
      if (c.visits + c.begin + c.end > 0) {
        if (job != nullptr) job->progress_started.store(1, std::memory_order_release);
        return true;
      }
    }
    return job != nullptr && job->progress_started.load(std::memory_order_acquire) != 0;
  };
  uint64_t waited = 0;
  bool started = false;
  while (!stop_requested_.load(std::memory_order_acquire) && !(started = progress_started())) {
    waited += sleeper.sleep_ns(kSliceNs);
    waited_for_progress_ns_.store(waited, std::memory_order_release);
  }
  if (started) waited_for_progress_ns_.store(0, std::memory_order_release);
  if (!settings_.job.empty() && !fixed_.empty()) {
    lockstep_loop(*controller);
    return;
  }
  if (job != nullptr && settings_.automatic) {
    automatic_lockstep_loop(*controller, *job);
    return;
  }
  while (!stop_requested_.load(std::memory_order_acquire)) {
    const auto plan = controller->plan_next();
    if (!plan) {
      sleeper.sleep_ns(std::max<uint64_t>(controller->config().cooloff_ns, kSliceNs));
      continue;
    }
    if (!run_experiment(*controller, *plan)) break;
    sleeper.sleep_ns(controller->config().cooloff_ns);
  }
}

bool CausalRuntime::run_experiment(ExperimentController& controller, const ExperimentPlan& plan) {
  const Sleeper sleeper = real_sleeper();
  constexpr uint64_t kSliceNs = timing::kControllerSliceNs;
  sync_counted_points();
  // Inline futex calls trap during experiments only (syscall_dispatch.h).
  dispatch::set_trapping(true, plan.speedup > 0);
  controller.begin(plan);
  if (plan.warmup_ns == 0) cpu_wait_.begin();  // measuring starts here
  // The warm-up (ExperimentConfig::warmup_share): delays as usual, nothing measured.
  uint64_t warmed = 0;
  while (warmed < plan.warmup_ns && !stop_requested_.load(std::memory_order_acquire)) {
    warmed += sleeper.sleep_ns(std::min(kSliceNs, plan.warmup_ns - warmed));
  }
  if (plan.warmup_ns > 0) {
    sync_counted_points();
    controller.start_measuring();
    cpu_wait_.begin();
  }
  uint64_t measured = 0;
  while (measured < plan.duration_ns && !stop_requested_.load(std::memory_order_acquire)) {
    measured += sleeper.sleep_ns(std::min(kSliceNs, plan.duration_ns - measured));
    controller.observe_in_flight();
  }
  sync_counted_points();
  format::ExperimentRecord record = controller.finish();
  // --rank: another location than the same line sped up in every rank, named so.
  if (settings_.only_rank >= 0) {
    record.location += " (rank " + std::to_string(settings_.only_rank) + ")";
  }
  dispatch::set_trapping(false, false);
  // An experiment cut short by the exit (in its warm-up or later) is dropped: the
  // program was winding down, not making progress as usual.
  if (stop_requested_.load(std::memory_order_acquire)) return false;
  cpu_wait_.end();
  queue(std::move(record));
  return true;
}

namespace {

uint64_t realtime_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// A lockstep slot's parts, the same in every rank: fixed lengths (no doubling on few
// visits: a rank without the progress point would double differently), and a slot holds
// the warm-up, the measurement and the pause.
struct SlotTimes {
  uint64_t duration_ns, warmup_ns, slot_ns;
};
SlotTimes slot_times(const ExperimentConfig& config) {
  const uint64_t duration = config.initial_duration_ns;
  const auto warmup =
      static_cast<uint64_t>(std::max(0.0, config.warmup_share) * static_cast<double>(duration));
  return {duration, warmup, warmup + duration + config.cooloff_ns};
}

}  // namespace

bool CausalRuntime::sleep_until_realtime(uint64_t realtime_ns) {
  const Sleeper sleeper = real_sleeper();
  for (;;) {
    if (stop_requested_.load(std::memory_order_acquire)) return false;
    const uint64_t now = realtime_now_ns();
    if (now >= realtime_ns) return true;
    sleeper.sleep_ns(std::min(timing::kControllerSliceNs, realtime_ns - now));
  }
}

std::optional<uint64_t> CausalRuntime::sleep_until_next_slot(uint64_t slot_ns) {
  const uint64_t slot = next_slot(realtime_now_ns(), slot_ns);
  if (!sleep_until_realtime(slot_start_ns(slot, slot_ns))) return std::nullopt;
  return slot;
}

void CausalRuntime::lockstep_loop(ExperimentController& controller) {
  const ExperimentConfig& config = controller.config();
  const SlotTimes times = slot_times(config);
  const std::vector<double> speedups =
      config.speedups.empty() ? default_speedups() : config.speedups;
  while (const auto slot = sleep_until_next_slot(times.slot_ns)) {
    const SlotPick pick = pick_for_slot(config.seed, *slot, fixed_.size(), speedups,
                                        config.baseline_share, config.fixed_speedup);
    const ExperimentPlan plan{&table_.at(fixed_[pick.location]), pick.speedup, times.duration_ns,
                              times.warmup_ns};
    if (!run_experiment(controller, plan)) return;
  }
}

void CausalRuntime::automatic_lockstep_loop(ExperimentController& controller, JobShared& job) {
  const Sleeper sleeper = real_sleeper();
  const SlotTimes times = slot_times(controller.config());
  // A follower waits this long into a slot for the leader's announcement (the warm-up
  // absorbs the lag), then sits the slot out.
  const uint64_t follow_wait_ns = std::min<uint64_t>(times.warmup_ns, 20'000'000);
  const bool leader = claim_leader(job);
  std::unordered_map<std::string, uint32_t> by_name;  // a follower's locations
  if (!leader) {
    for (uint32_t id = 0; id < table_.size(); ++id) by_name.emplace(table_.at(id).name, id);
  }
  while (const auto slot = sleep_until_next_slot(times.slot_ns)) {
    std::optional<ExperimentPlan> plan;
    if (leader) {
      plan = controller.plan_next();  // from this rank's recent samples
      if (!plan) continue;
      plan->duration_ns = times.duration_ns;
      plan->warmup_ns = times.warmup_ns;
      announce_slot(job, *slot, plan->location->name, plan->speedup);
    } else {
      std::optional<Announcement> a;
      for (uint64_t waited = 0; !(a = announced(job, *slot)) && waited < follow_wait_ns;) {
        if (stop_requested_.load(std::memory_order_acquire)) return;
        waited += sleeper.sleep_ns(1'000'000);
      }
      if (!a) continue;
      const auto it = by_name.find(a->location);
      if (it == by_name.end()) continue;
      plan = ExperimentPlan{&table_.at(it->second), a->speedup, times.duration_ns, times.warmup_ns};
    }
    if (!run_experiment(controller, *plan)) return;
  }
}

}  // namespace cprof::causal
