#pragma once
// The causal runtime inside the profiled process (libcprof-causal.so): the sampling
// runtime (sampler/runtime/) with hooks that run experiments. Its jobs, one file each:
// causal_runtime.cpp its life (start, the controller thread's start, the record queue,
// latency points), runtime_locations.cpp loading the locations, controller_loop.cpp the
// experiments, run_end.cpp the end-of-run records, runtime_hooks.cpp the hooks. One controller
// thread runs the experiments (causal/experiment.h); the sampling handler's hook matches the
// selected location on each sample's stack, notes recent locations for automatic selection and
// makes the thread pay the delays it owes; the interposed blocking calls
// (blocking_interpose.cpp) apply the blocking rules of causal/delays.h. Records go
// through the sampling runtime's writer. docs/causal.md.
//
// Signal-safety contract: current_thread(), delays(), progress points' counting and the
// hook on_sample are async-signal-safe. start(), stop() and the other hooks run in
// normal context.

#include <pthread.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "causal/delays.h"
#include "causal/experiment.h"
#include "causal/job_lockstep.h"
#include "causal/location.h"
#include "causal/patch_plan.h"
#include "causal/progress_registry.h"
#include "causal/region_spans.h"
#include "causal/runtime/cpu_wait.h"
#include "causal/runtime/settings.h"
#include "format/records.h"

namespace cprof::format {
class ResultsWriter;
}
namespace cprof::sampler {
struct ThreadState;
struct RuntimeHooks;
}

namespace cprof::causal {

class BreakpointPoints;

// The causal state of one thread (sampler::ThreadState::extension).
struct CausalThread {
  ThreadDelay delay;
  // Latency points begun on this thread and not yet ended, for per-call durations.
  struct Open {
    ProgressPoint* point;
    uint64_t start_ns;
  };
  static constexpr unsigned kMaxOpen = 16;
  Open open[kMaxOpen] = {};
  unsigned open_count = 0;
  uint64_t device_wait_start_ns = 0;  // the outermost GPU wait's start (device_wait.cpp)
};

class CausalRuntime {
 public:
  // Reads the settings, builds the location table and sets the sampling runtime's hooks.
  // Call before sampler::Runtime::start. Returns null (and says why on stderr) when the
  // process cannot run experiments; progress points still count.
  static CausalRuntime* start();
  static CausalRuntime* instance();
  // After the sampling runtime started: Syscall User Dispatch for libraries that make
  // inline futex calls (syscall_dispatch.h), if one is loaded.
  void start_dispatch();
  // After the sampling runtime started: makes the experiment controller, with the
  // sampling runtime's period, and starts the controller thread.
  void start_controller();
  // At exit, before the sampling runtime stops: ends the experiments and queues the last
  // records (the end-to-end experiment, the timed regions). Once; a second call returns.
  void stop();

  // The calling thread's causal state, or null (an unregistered thread). Signal-safe.
  static CausalThread* current_thread();
  DelayAccounting& delays() { return delays_; }
  // The host's shared page in an MPI job; null outside one (or when it could not be mapped).
  JobShared* job_shared() const { return job_ ? job_->get() : nullptr; }
  ProgressRegistry& progress() { return progress_; }

  // Latency points with per-call durations (the project's header). A pair on one thread
  // also records the call's span (thread, begin, end) for the chrome trace; the API has
  // no call identity, so a begin and end on different threads count for Little's law
  // but make neither a duration nor a span.
  void latency_begin(ProgressPoint& point);
  void latency_end(ProgressPoint& point);
  // Makes the ring of region spans, once (a latency point was created: normal context).
  void enable_region_spans();

  // sampler::RuntimeHooks (hooks.h), set by start().
  static bool hook_leave_out_sample(sampler::ThreadState& ts, uint64_t weight_ns);
  static void hook_on_sample(sampler::ThreadState& ts, const uint64_t* frames, size_t depth,
                             uint64_t weight_ns);
  static void hook_thread_registered(sampler::ThreadState& ts);
  static void hook_thread_exit(sampler::ThreadState& ts);
  static void hook_thread_freed(sampler::ThreadState& ts);
  static void hook_fork_prepare();
  static void hook_fork_release();
  static void hook_fork_child();
  static void hook_modules_changed();
  static void hook_exec();
  static void hook_drain(format::ResultsWriter& writer);
  static void hook_dying(int sig);

 private:
  CausalRuntime(CausalSettings settings, std::vector<std::string> problems);
  ExperimentController* controller() const { return controller_.load(std::memory_order_acquire); }
  static const sampler::RuntimeHooks* hooks_table();  // runtime_hooks.cpp
  static uint64_t now_ns();
  // The main executable's load bias and resolved path (runtime_locations.cpp).
  static uint64_t main_load_bias();
  // Load bias of every loaded library, by path (as the loader named it, and resolved).
  static std::map<std::string, uint64_t> library_load_biases();
  static std::string self_executable();
  void make_controller(ExperimentConfig config);
  bool load_locations(std::string& error);
  bool load_locations_file(const std::string& path, std::string& error);
  // An exec'd program (resolve_for_): resolves its locations with causal-run, loads them
  // and makes the controller. Controller thread.
  bool resolve_exec_locations();
  // After a dlopen or dlclose (later_libraries.cpp): the locations and --progress places
  // in libraries the program did not load at start are attached to the library where it
  // is loaded now (patched, for a place), detached where it is gone. Normal context.
  void attach_later_libraries();
  // At exit: a warning per library with locations or places that was never loaded.
  void queue_never_loaded();
  // End to end: the location the baseline run of the pair with this seed chose (from
  // the run's locations cache), or null.
  const Location* pair_location(uint64_t seed) const;
  // At exit, the run's end-to-end record: an automatic baseline's location is drawn
  // from the run's samples and stored for its pair. False when there is nothing to
  // record (no sample in scope).
  bool finish_end_to_end(format::ExperimentRecord& record);
  static void* controller_main(void* self);
  void controller_loop();
  // Runs one experiment: warm-up, measurement, its record queued. False when the exit
  // asked the controller to stop meanwhile (the experiment is dropped).
  bool run_experiment(ExperimentController& controller, const ExperimentPlan& plan);
  // An MPI job's experiments (job_lockstep.h): one per slot of the realtime grid, the
  // same in every rank.
  void lockstep_loop(ExperimentController& controller);
  // The same for automatic selection: the host's leading rank draws each slot's location
  // from its samples and announces it; the other ranks follow (job_lockstep.h).
  void automatic_lockstep_loop(ExperimentController& controller, JobShared& job);
  // Sleeps until CLOCK_REALTIME reaches `realtime_ns`, in slices; false if asked to stop.
  bool sleep_until_realtime(uint64_t realtime_ns);
  // Sleeps until the next lockstep slot of length `slot_ns` starts: its number, or
  // nullopt if asked to stop meanwhile.
  std::optional<uint64_t> sleep_until_next_slot(uint64_t slot_ns);
  // Folds the --progress points' counters into their visit counts, if there are any.
  void sync_counted_points();
  // The info message that the run had enough samples and none in scope (once, at exit).
  void queue_no_sample_in_scope();
  void queue(format::Record record);
  void queue_message(format::MessageLevel level, std::string text);
  // The end-of-run count of the futex calls seen outside pthread (an info message).
  void queue_futex_counts();
  // The --progress FILE:LINE points' visits since the last time they were queued
  // (kCountedVisitsMessage; readers add the messages up): at exec and at the end, so an
  // image that execs keeps its count and one whose exec failed does not count it twice.
  // Every point's first message is queued even at 0 visits (the run says so).
  void queue_counted_visits();
  // At exit: how many of the `calls` with a duration have no span (beyond the cap, ring
  // full), as an info message; nothing when every call has one.
  void queue_region_span_counts(uint64_t calls);

  CausalSettings settings_;
  std::vector<std::string> problems_;
  bool experiments_enabled_ = false;
  std::string resolve_for_;  // an exec'd program whose locations are still to resolve
  bool end_to_end_ = false;
  LocationTable table_;
  std::vector<uint32_t> fixed_;
  RecentLocations recent_;
  // End-to-end automatic mode: in-scope samples per location over the run (the
  // baseline draws the pair's location from them); null otherwise.
  std::unique_ptr<LocationTally> tally_;
  bool forked_child_ = false;
  // An MPI rank other than the one --rank names: its samples never hit the location.
  bool sits_out_ = false;
  DelayAccounting delays_;
  // An MPI job's shared page on this host (settings_.job), or null: its delay count is the
  // one delays_ keeps.
  std::unique_ptr<JobSegment> job_;
  ProgressRegistry progress_;
  // Read by the signal handler: replaced (in a forked child) but never freed.
  std::atomic<ExperimentController*> controller_{nullptr};
  std::unique_ptr<BreakpointPoints> breakpoints_;
  // What waits for a library the program loads later (dlopen), under later_mutex_ after
  // start (a dlopen on any thread, held across fork).
  struct LaterLocation {
    uint32_t id;
    std::string module;
    bool ever_loaded = false;
    bool moved = false;  // loaded again at another address: no longer experimented on
  };
  struct LaterPoint {
    ProgressPoint* point;
    std::string module;
    uint64_t address;  // the library file's
    PatchPlan plan;
    std::optional<uint64_t> patched_bias;  // where it counts now: none while not loaded
    bool ever_patched = false;
    bool failed = false;  // said once
  };
  std::vector<LaterLocation> later_locations_;
  std::vector<LaterPoint> later_points_;
  std::mutex later_mutex_;
  // Per progress point, the visits counted so far that a message already holds
  // (queue_counted_visits); in a forked child, its parent's count at the fork, which the
  // parent reports.
  std::vector<uint64_t> visits_queued_;
  bool visits_ever_queued_ = false;
  uint64_t load_bias_ = 0;
  // Region spans (region_spans.h): made by the first latency point, replaced (not freed)
  // in a forked child, whose spans and cap are its own; null with no latency point or a
  // cap of 0 (CPROF_CAUSAL_REGION_SPANS).
  std::atomic<RegionSpanRing*> spans_{nullptr};
  uint64_t region_span_cap_ = RegionSpanRing::kDefaultCap;

  pthread_t controller_thread_{};
  bool controller_running_ = false;
  std::atomic<bool> stop_requested_{false};
  // The controller waited for the program's first progress visit this long (ns) and saw
  // none (0 once one came): no experiment began.
  std::atomic<uint64_t> waited_for_progress_ns_{0};
  std::atomic<bool> stopping_{false};  // stop() ran or runs (the exit path, or a death)
  // The process dies of a signal: the run did not end as runs do, so its end-to-end
  // experiment is not written (what it measured ends wherever the signal came).
  std::atomic<bool> killed_{false};
  std::atomic<uint64_t> samples_seen_{0};  // by the hook, with a controller (signal-safe)
  // CPU-time samples taken while their thread paid a delay, left out of the profile.
  std::atomic<uint64_t> paying_samples_{0};
  std::atomic<uint64_t> paying_sample_ns_{0};
  CpuWaitTally cpu_wait_;  // over the experiments' windows, or the whole end-to-end run

  struct Queue {
    std::mutex mutex;
    std::vector<format::Record> records;
    size_t points_written = 0;
    // In a forked child, the parent's queue it replaced: kept reachable, never freed.
    Queue* parents = nullptr;
  };
  Queue* queue_ = new Queue;  // replaced (not freed) in a forked child: a lock may be held
};

}  // namespace cprof::causal
