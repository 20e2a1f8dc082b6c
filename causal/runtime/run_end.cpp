// The causal runtime's end of a run: the controller stopped, the end-to-end experiment
// finished, and the records only the whole run can give (timed regions, CPU waits, futex
// and GPU-wait counts, samples left out) queued for the last drain.
#include <string>

#include "causal/runtime/blocking_calls.h"
#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/device_wait.h"
#include "causal/runtime/locations_cache.h"
#include "causal/runtime/openmp_waits.h"
#include "causal/runtime/peer_wait.h"
#include "causal/runtime/real_calls.h"
#include "causal/runtime/syscall_dispatch.h"
#include "common/monotonic.h"

namespace cprof::causal {

bool CausalRuntime::finish_end_to_end(format::ExperimentRecord& record) {
  if (tally_ == nullptr || record.speedup != 0) return true;
  // An automatic baseline: its location is drawn from this run's in-scope samples, so
  // the pair experiments on code in proportion to the time it takes (a uniform draw
  // over every line or function in scope would mostly pick code that never runs).
  const std::vector<uint64_t> counts = tally_->counts();
  const uint64_t seed = settings_.experiments.seed;
  const auto id = draw_by_count(counts, seed);
  if (!id) {
    if (samples_seen_.load(std::memory_order_relaxed) >= 50) {
      queue_no_sample_in_scope();
    }
    return false;
  }
  record.location = table_.at(*id).name;
  record.location_id = *id;
  record.selected_samples = counts[*id];
  if (!forked_child_) {
    LocationsCache(settings_.locations_cache, self_executable())
        .store_pair_location(seed, record.location);
  }
  return true;
}

void CausalRuntime::stop() {
  if (stopping_.exchange(true, std::memory_order_acq_rel)) return;
  if (controller_running_) {
    stop_requested_.store(true, std::memory_order_release);
    join_thread(controller_thread_, nullptr);
    controller_running_ = false;
    // Said only after a run long enough for an experiment (a shell a script starts does
    // not say it).
    if (ExperimentController* controller = this->controller();
        controller != nullptr && waited_for_progress_ns_.load(std::memory_order_acquire) >=
                                     controller->config().initial_duration_ns) {
      queue_message(format::MessageLevel::info, kNoProgressMessage);
    }
  }
  // Enough samples to tell (50 ms of CPU time at the default rate), none in scope.
  if (settings_.automatic && !end_to_end_ && experiments_enabled_ && controller() != nullptr &&
      samples_seen_.load(std::memory_order_relaxed) >= 50 && recent_.noted() == 0) {
    queue_no_sample_in_scope();
  }
  if (end_to_end_ && cpu_wait_.window_open()) cpu_wait_.end();
  if (std::string busy =
          cpu_wait_warning(cpu_wait_.run_ns(), cpu_wait_.wait_ns(), settings_.cpu_wait_warn_share);
      !busy.empty()) {
    queue_message(format::MessageLevel::warning, std::move(busy));
  }
  if (ExperimentController* controller = this->controller();
      end_to_end_ && controller != nullptr && controller->running() &&
      !killed_.load(std::memory_order_acquire)) {
    sync_counted_points();
    format::ExperimentRecord record = controller->finish();
    record.mode = format::ExperimentMode::end_to_end;
    if (finish_end_to_end(record)) queue(std::move(record));
  }
  dispatch::set_trapping(false, false);
  if (job_) job_->unlink();  // the ranks that mapped it keep their mapping
  queue_futex_counts();
  queue_never_loaded();
  queue_counted_visits();
  if (std::string mpi = peer_wait_summary(); !mpi.empty()) {
    queue_message(format::MessageLevel::info, std::move(mpi));
  }
  if (std::string gpu = device_wait_summary(); !gpu.empty()) {
    queue_message(format::MessageLevel::info, std::move(gpu));
  }
  if (std::string omp = runtime_wait_summary(); !omp.empty()) {
    queue_message(format::MessageLevel::info, std::move(omp));
  }
  if (const uint64_t n = paying_samples_.load(std::memory_order_relaxed); n > 0) {
    // Parsed by the tests: keep the "samples left out while paying delays: N" prefix.
    const uint64_t ms = paying_sample_ns_.load(std::memory_order_relaxed) / 1000000;
    queue_message(format::MessageLevel::info,
                  "samples left out while paying delays: " + std::to_string(n) + " (" +
                      std::to_string(ms) +
                      " ms of CPU time, the pauses' own system calls: the runtime's cost, "
                      "not the program's work)");
  }
  uint64_t region_calls = 0;
  for (size_t i = 0; i < progress_.size(); ++i) {
    const ProgressPoint* p = progress_.at(i);
    const RegionStats stats = p->region();
    region_calls += stats.count() + p->dropped_durations();
    if (stats.count() == 0) continue;
    format::RegionRecord r;
    r.name = p->name();
    r.time_ns = now_ns();
    r.count = stats.count();
    r.mean_ns = stats.mean();
    r.stddev_ns = stats.stddev();
    r.min_ns = static_cast<uint64_t>(stats.min());
    r.max_ns = static_cast<uint64_t>(stats.max());
    r.dropped = p->dropped_durations();
    queue(std::move(r));
  }
  queue_region_span_counts(region_calls);
}

void CausalRuntime::queue_region_span_counts(uint64_t calls) {
  const RegionSpanRing* ring = spans_.load(std::memory_order_acquire);
  if (ring == nullptr) return;
  // Threads still running may add calls after this count: the numbers are as of now.
  const uint64_t tickets = ring->tickets();
  const uint64_t over_cap = calls > tickets ? calls - tickets : 0;
  const uint64_t full = ring->dropped_full();
  if (over_cap == 0 && full == 0) return;
  // Parsed by the tests: keep the "region spans: " prefix.
  queue_message(format::MessageLevel::info,
                "region spans: " + std::to_string(ring->recorded()) + " of " +
                    std::to_string(calls) + " timed-region calls recorded as spans; " +
                    std::to_string(over_cap) + " after the first " + std::to_string(ring->cap()) +
                    " (" + env::kRegionSpans + "), " + std::to_string(full) +
                    " dropped with the buffer full; the region summaries count every call");
}

void CausalRuntime::queue_no_sample_in_scope() {
  queue_message(format::MessageLevel::info,
                std::string(kNoSampleInScopeMessage) + " (" + std::to_string(table_.size()) +
                    (table_.size() == 1 ? " location)" : " locations)"));
}

void CausalRuntime::queue_counted_visits() {
  if (!breakpoints_) return;
  sync_counted_points();
  const bool first = !visits_ever_queued_;
  visits_ever_queued_ = true;
  visits_queued_.resize(progress_.size(), 0);
  for (size_t i = 0; i < progress_.size(); ++i) {
    const ProgressPoint* p = progress_.at(i);
    if (p->source() != ProgressSource::breakpoint) continue;
    const uint64_t visits = p->counts().visits;
    const uint64_t added = visits - visits_queued_[i];  // counts only grow
    visits_queued_[i] = visits;
    if (added == 0 && !first) continue;
    queue_message(format::MessageLevel::info,
                  std::string(kCountedVisitsMessage) + p->name() + ": " + std::to_string(added));
  }
}

void CausalRuntime::queue_futex_counts() {
  const FutexCounts& c = futex_counts();
  const auto n = [](const std::atomic<uint64_t>& v) { return std::to_string(v.load()); };
  const auto via = static_cast<unsigned>(FutexPath::syscall_function);
  const auto trapped = static_cast<unsigned>(FutexPath::dispatch);
  if (c.waits[via] + c.wakes[via] + c.waits[trapped] + c.wakes[trapped] == 0 &&
      !dispatch::active()) {
    return;
  }
  // Parsed by the tests: keep the "futex waits intercepted: N" prefix.
  queue_message(format::MessageLevel::info,
                "futex waits intercepted: " + std::to_string(c.waits[via] + c.waits[trapped]) +
                    " (syscall(): " + n(c.waits[via]) + " waits, " + n(c.wakes[via]) +
                    " wakes; Syscall User Dispatch, " + dispatch::describe() + ": " +
                    n(c.waits[trapped]) + " waits, " + n(c.wakes[trapped]) + " wakes, " +
                    n(c.other_syscalls) + " other system calls)");
}

}  // namespace cprof::causal
