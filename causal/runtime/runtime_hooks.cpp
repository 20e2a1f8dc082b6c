// The causal runtime's hooks into the sampling runtime (sampler/runtime/hooks.h): what
// happens on each sample, thread start and end, fork, module change, drain and death.
// The sample hook runs in the signal handler (causal_runtime.h's contract).
#include <unistd.h>

#include <map>

#include "causal/runtime/breakpoints.h"
#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/device_wait.h"
#include "causal/runtime/openmp_waits.h"
#include "causal/runtime/syscall_dispatch.h"
#include "causal/sample_step.h"
#include "common/monotonic.h"
#include "format/writer.h"
#include "sampler/runtime/hooks.h"
#include "sampler/runtime/thread_registry.h"

namespace cprof::causal {

// A thread that pays a delay sleeps, but the sleep's system calls and the switches take
// CPU time, and a sample of it has the program's frames above DelayAccounting::pay: as a
// sample of the program it would show the runtime's pauses as the program's work (2.4% of
// speedtest1's samples), and as a sample "in" the selected location it would insert more
// delay for the delay. Left out, and counted.
bool CausalRuntime::hook_leave_out_sample(sampler::ThreadState& ts, uint64_t weight_ns) {
  const auto* t = static_cast<const CausalThread*>(ts.extension);
  if (t == nullptr || !t->delay.paying.load(std::memory_order_acquire)) return false;
  if (CausalRuntime* rt = instance()) {
    rt->paying_samples_.fetch_add(1, std::memory_order_relaxed);
    rt->paying_sample_ns_.fetch_add(weight_ns, std::memory_order_relaxed);
  }
  return true;
}

// A sample in the selected location inserts speedup x the nominal period, not x its
// measured weight (weight_ns): the experiment's record holds the period and the count of
// selected samples, from which the report computes the delay it inserted (the delay bound,
// the phase correction), as Coz does. A weight measures the whole interval since the
// previous sample, of which the sample's stack saw only the end; over many samples the
// weights average to the period.
void CausalRuntime::hook_on_sample(sampler::ThreadState& ts, const uint64_t* frames, size_t depth,
                                   uint64_t /*weight_ns*/) {
  CausalRuntime* rt = instance();
  auto* t = static_cast<CausalThread*>(ts.extension);
  ExperimentController* controller = rt != nullptr ? rt->controller() : nullptr;
  if (t == nullptr || controller == nullptr) return;
  rt->samples_seen_.fetch_add(1, std::memory_order_relaxed);
  const SampleStep step{rt->delays_,
                        rt->sits_out_ ? nullptr : controller->selected(),
                        rt->settings_.automatic ? &rt->table_ : nullptr,
                        &rt->recent_,
                        runtime_code(),
                        system_code(),
                        rt->tally_.get()};
  switch (causal_sample(step, t->delay, std::span<const uint64_t>(frames, depth))) {
    case SampleOutcome::in_device_wait:
      note_device_wait_sample();
      break;
    case SampleOutcome::in_runtime_wait:
      note_runtime_wait_sample();
      break;
    case SampleOutcome::counted:
      break;
  }
}

void CausalRuntime::hook_thread_registered(sampler::ThreadState& ts) {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  // On the new thread itself (adopted threads are registered from the main thread and
  // asked by signal instead).
  if (ts.tid == gettid()) dispatch::thread_started();
  auto* t = new CausalThread;
  rt->delays_.thread_started(t->delay);
  ts.extension = t;
  if (rt->breakpoints_) {
    if (std::string err = rt->breakpoints_->arm(ts.tid); !err.empty()) {
      rt->queue_message(format::MessageLevel::warning, "thread " + std::to_string(ts.tid) +
                                                           ": progress point not counted: " + err);
    }
  }
}

void CausalRuntime::hook_thread_exit(sampler::ThreadState& ts) {
  CausalRuntime* rt = instance();
  auto* t = static_cast<CausalThread*>(ts.extension);
  // It may be joined: pay first, so the joiner, credited, is not ahead of it.
  if (rt != nullptr && t != nullptr) rt->delays_.before_wake_other(t->delay);
  // Its run and wait times, which a reading at the window's end would not find.
  if (rt != nullptr && rt->cpu_wait_.window_open()) {
    if (const auto times = read_own_cpu_times()) rt->cpu_wait_.thread_ended(ts.tid, *times);
  }
}

void CausalRuntime::hook_thread_freed(sampler::ThreadState& ts) {
  CausalRuntime* rt = instance();
  if (rt != nullptr && rt->breakpoints_) rt->breakpoints_->retire(ts.tid);
  delete static_cast<CausalThread*>(ts.extension);
  ts.extension = nullptr;
}

void CausalRuntime::hook_fork_prepare() {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  // After the sampling runtime's locks (a thread registers, then arms breakpoints, under
  // the registry's); both are leaves otherwise. A dlopen attaches later libraries'
  // places under later_mutex_, then adds them to the breakpoints: that one first.
  rt->later_mutex_.lock();
  rt->progress_.lock_for_fork();
  if (rt->breakpoints_) rt->breakpoints_->lock_for_fork();
  rt->cpu_wait_.fork_prepare();
}

void CausalRuntime::hook_fork_release() {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  rt->cpu_wait_.fork_release();
  if (rt->breakpoints_) rt->breakpoints_->unlock_after_fork();
  rt->progress_.unlock_after_fork();
  rt->later_mutex_.unlock();
}

void CausalRuntime::hook_fork_child() {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  rt->forked_child_ = true;
  rt->stopping_.store(false, std::memory_order_release);  // the child ends on its own
  rt->killed_.store(false, std::memory_order_release);
  dispatch::fork_child();
  dispatch::set_trapping(false, false);  // the parent's experiment does not go on here
  // Only the forking thread exists; the controller thread and any lock it held did not
  // come along. The child runs experiments of its own, written to its own file.
  // The parent's may be locked; its records are the parent's.
  rt->queue_ = new Queue{.parents = rt->queue_};
  rt->cpu_wait_.forget();  // the parent's threads and windows
  rt->progress_.after_fork_in_child();
  // Its counts go on from its parent's, which the parent reports: the child's messages
  // hold its own visits.
  rt->visits_queued_.assign(rt->progress_.size(), 0);
  for (size_t i = 0; i < rt->progress_.size(); ++i) {
    rt->visits_queued_[i] = rt->progress_.at(i)->counts().visits;
  }
  rt->visits_ever_queued_ = false;
  // Likewise the spans: the parent's are the parent's, and a thread that did not come
  // along may have left a slot claimed and never filled.
  if (rt->spans_.load(std::memory_order_acquire) != nullptr) {
    rt->spans_.store(new RegionSpanRing(rt->region_span_cap_), std::memory_order_release);
  }
  rt->controller_running_ = false;
  if (rt->controller() != nullptr && rt->controller()->running()) rt->delays_.end_experiment();
  if (rt->breakpoints_) {
    rt->breakpoints_->forget_all();
    if (sampler::ThreadState* ts = sampler::ThreadRegistry::current())
      rt->breakpoints_->arm(ts->tid);
  }
  if (rt->experiments_enabled_ && rt->controller() != nullptr) {
    // A fresh controller (the old one is left: a handler may still read it); its own seed.
    auto config = rt->controller()->config();
    config.seed = config.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(getpid());
    rt->make_controller(std::move(config));
  }
  rt->start_controller();
}

void CausalRuntime::hook_modules_changed() {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  rt->attach_later_libraries();
  rt->start_dispatch();
}

void CausalRuntime::hook_exec() {
  // The --progress places are this image's (the next one resolves its own): their
  // visits go into this image's file, which ends here.
  if (CausalRuntime* rt = instance()) rt->queue_counted_visits();
}

void CausalRuntime::hook_drain(format::ResultsWriter& writer) {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  std::vector<format::Record> records;
  size_t written = 0;
  {
    std::lock_guard lock(rt->queue_->mutex);
    records.swap(rt->queue_->records);
    written = rt->queue_->points_written;
    rt->queue_->points_written = rt->progress_.size();
  }
  // Points first: the experiments that follow name them.
  for (size_t i = written; i < rt->progress_.size(); ++i) {
    const ProgressPoint* p = rt->progress_.at(i);
    format::ProgressPointRecord r;
    r.id = p->id();
    r.name = p->name();
    r.kind = static_cast<format::ProgressPointKind>(p->kind());
    r.source = static_cast<format::ProgressPointSource>(p->source());
    r.file = p->file();
    r.line = p->line();
    r.time_ns = now_ns();
    writer.add(r);
  }
  for (const auto& r : records) writer.add(r);
  if (RegionSpanRing* ring = rt->spans_.load(std::memory_order_acquire)) {
    // One record per point per drain; a drain takes at most a ring's worth, the rest
    // waits for the next one (20 ms), so one record stays small. The ring's single
    // consumer: every drain (writer thread, dlopen, exec, exit) holds the runtime's I/O
    // mutex.
    std::map<uint32_t, format::RegionSpansRecord> batches;
    SpanEntry s;
    for (size_t n = 0; n <= RegionSpanRing::kDefaultSlots && ring->pop(s); ++n) {
      auto& b = batches[s.point_id];
      if (b.spans.empty()) {
        b.point_id = s.point_id;
        b.name = s.point_id < rt->progress_.size() ? rt->progress_.at(s.point_id)->name() : "";
      }
      b.spans.push_back(format::RegionSpan{s.tid, s.begin_ns, s.end_ns});
    }
    for (const auto& [id, b] : batches) writer.add(b);
  }
}

void CausalRuntime::hook_dying(int sig) {
  // On the writer thread: the process ends without its exit path, through _exit() (sig 0:
  // an ordinary end, whose end-to-end experiment counts) or a terminating signal.
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  if (sig != 0) rt->killed_.store(true, std::memory_order_release);
  rt->stop();
}

const sampler::RuntimeHooks* CausalRuntime::hooks_table() {
  static const sampler::RuntimeHooks hooks{
      .leave_out_sample = &CausalRuntime::hook_leave_out_sample,
      .on_sample = &CausalRuntime::hook_on_sample,
      .on_thread_registered = &CausalRuntime::hook_thread_registered,
      .on_thread_exit = &CausalRuntime::hook_thread_exit,
      .on_thread_freed = &CausalRuntime::hook_thread_freed,
      .on_fork_prepare = &CausalRuntime::hook_fork_prepare,
      .on_fork_release = &CausalRuntime::hook_fork_release,
      .on_fork_child = &CausalRuntime::hook_fork_child,
      .on_modules_changed = &CausalRuntime::hook_modules_changed,
      .on_exec = &CausalRuntime::hook_exec,
      .on_drain = &CausalRuntime::hook_drain,
      .on_dying = &CausalRuntime::hook_dying,
  };
  return &hooks;
}

}  // namespace cprof::causal
