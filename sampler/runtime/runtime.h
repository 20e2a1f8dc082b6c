#pragma once
// The sampling runtime inside the profiled process: starts before main (a constructor),
// arms every thread, drains samples on a background writer thread into this process's
// results file, and follows fork, exec and dlopen. docs/sampler.md explains the design.
//
// Signal-safety contract: on_signal() is the only member that runs in a signal handler;
// it is async-signal-safe (no allocation, no locks, no stdio). Everything else runs in
// normal context: the constructor/destructor, the interposed functions and the writer.

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <string>
#include <vector>

#include "common/monotonic.h"
#include "format/writer.h"
#include "sampler/engines/engine.h"
#include "sampler/events/event_resolver.h"
#include "sampler/runtime/config.h"
#include "sampler/runtime/futex_word.h"
#include "sampler/runtime/module_recorder.h"
#include "sampler/runtime/owned_fds.h"
#include "sampler/runtime/process_metrics.h"
#include "sampler/runtime/thread_registry.h"
#include "sampler/unwind/module_table.h"
#include "sampler/unwind/unwinder.h"

namespace cprof::sampler {

using RealPthreadCreate = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

class Runtime {
 public:
  // Starts sampling in this process; returns null (and says why on stderr) when the
  // configuration cannot work. Called once, from the library constructor.
  static Runtime* start(RuntimeConfig config, std::vector<std::string> config_problems,
                        RealPthreadCreate real_pthread_create);
  // The running instance, or null. Async-signal-safe.
  static Runtime* instance();

  // Stops sampling, writes everything, closes the file. At exit.
  void stop();
  // The process is about to end without its exit path: a terminating signal `sig`
  // (terminating_signals.h), or _exit() when `sig` is 0 (exit_interpose.cpp). Has the
  // writer thread write everything, waiting at most a second for it. Async-signal-safe.
  void write_before_dying(int sig) noexcept;
  // A program's SIGABRT handler returned, so abort() may be about to end the process past
  // every hook (terminating_signals.h): has the writer thread write what is not written
  // yet (the samples, as a chunk on disk, and a message the first time), waiting at most a
  // second; sampling goes on. Async-signal-safe.
  void write_after_abort_handler() noexcept;

  // The calling thread begins (from the pthread_create trampoline), its creator believing
  // that it blocked the sampling signal or not (signal_mask.h).
  void thread_started(bool program_blocks_signal = false);
  // The calling thread ends (pthread key destructor on that thread).
  void thread_exiting(ThreadState& state);

  void before_fork();
  void after_fork_in_parent();
  void after_fork_in_child();
  // Writes everything buffered: the image is about to be replaced.
  void before_exec();
  // exec returned: the image was not replaced, so sampling resumes.
  void after_failed_exec();
  // After dlopen/dlclose: the module table is rebuilt and new modules are recorded.
  void modules_changed();
  // A thread was renamed (pthread_setname_np): the writer's next drain writes the new
  // name, so that a program killed later still has it. Async-signal-safe.
  void thread_renamed() noexcept { names_changed_.store(true, std::memory_order_release); }

  // The sampling signal handler's body. false: the signal is not one of the engines'
  // (the program's own, sampling_signal.h).
  bool on_signal(const siginfo_t* info, void* ucontext);

  const RuntimeConfig& config() const { return config_; }
  pid_t pid() const { return pid_; }
  // The nominal sampling period: what one CPU-time sample stands for on average.
  uint64_t period_ns() const { return period_ns_; }

 private:
  explicit Runtime(RuntimeConfig config);
  // Handlers and interposers see no runtime from here on (a child that cannot write).
  static void clear_instance();
  void release_fork_locks();  // what before_fork took
  bool open_results_file(std::string& error);
  void write_preamble();
  void arm(ThreadState& state);
  void disarm(ThreadState& state);         // takes io_mutex_ when it has counters
  void disarm_locked(ThreadState& state);  // under io_mutex_
  void adopt_existing_threads();
  void start_writer_thread();
  void stop_writer_thread();
  static void* writer_main(void* self);
  void writer_loop();
  // Drains every ring, writes new modules, thread records and due metrics. Takes io_mutex_.
  void drain(bool flush_file);
  void drain_locked(bool flush_file);
  void write_new_modules_locked();
  void write_thread_start_locked(ThreadState& state);
  void write_thread_end_locked(ThreadState& state);
  // A thread_name record for `state` when its name is no longer the one last written.
  void write_name_change_locked(ThreadState& state, uint64_t time_ns);
  // The most frames a stack is unwound into: the deepest --depth and the PC.
  static constexpr size_t kFrameCapacity = 1025;
  // Unwinds from `uc` within `stack` (its part above the SP) into `frames`, keeping at
  // most config_.max_depth; `truncated` when there were more. Async-signal-safe.
  size_t unwind_stack(const ucontext_t* uc, const StackBounds& stack,
                      uint64_t (&frames)[kFrameCapacity], bool& truncated) const noexcept;
  // At exit: a sample for each thread still asleep in a call that holds the sampling
  // signal (--clock wall), weighing the call so far, from its registers at the call.
  void write_held_calls_locked();
  void message(format::MessageLevel level, const std::string& text);
  void warn_if_timer_rate_low_locked();
  // The end, shared by stop() and the writer's last act before a signal ends the process:
  // every source silenced (their threads' CPU time taken), then, under io_mutex_, the rings
  // drained and the end records, event statuses and last metrics written.
  void silence_sources();
  void write_final_records_locked();
  void write_before_dying_on_writer();
  // Whether a thread of this process may ask the writer for a write and wait for it.
  // Async-signal-safe.
  bool writer_can_answer() const noexcept;

  RuntimeConfig config_;
  pid_t pid_ = 0;
  std::vector<std::string> pending_messages_;
  std::vector<ResolvedEvent> events_;
  std::vector<const perf_event_attr*> event_attrs_;  // null where unresolved
  std::vector<bool> event_opened_somewhere_;
  std::vector<uint64_t> event_totals_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Engine> wall_engine_;
  std::string engine_name_;
  UnwindMethod unwind_method_ = UnwindMethod::kDwarf;
  uint64_t period_ns_ = 0;

  // CFI tables on demand: a short-lived process (a shell's /bin/true, a compiler's cc1)
  // pays for none; the writer parses a module's table once the samples that went to
  // libunwind without it have cost as much as parsing it (cfi_policy.h).
  ModuleTable modules_{cfi_tables_from_environment()};  // on_demand unless a test says
  ModuleRecorder module_recorder_;
  ProcessMetricsReader metrics_;

  ThreadRegistry threads_;
  pthread_key_t exit_key_{};

  std::mutex io_mutex_;  // the results writer and everything it writes
  format::ResultsWriter writer_{owned_descriptor_keeper()};
  uint64_t last_flush_ns_ = 0;
  uint64_t last_metrics_ns_ = 0;
  uint64_t sampled_cpu_ns_ = 0;  // CPU time and samples of ended threads, for the rate check
  uint64_t cpu_samples_ = 0;

  RealPthreadCreate real_pthread_create_ = nullptr;
  pthread_t writer_thread_{};
  bool writer_running_ = false;
  // The writer sleeps on this between drains; stop and write_before_dying bump it.
  FutexWord writer_wake_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> names_changed_{false};  // thread_renamed() since the last drain
  // write_before_dying: 0, 1 asked (by the signal in dying_signal_, 0 for _exit), 2 written.
  FutexWord dying_;
  std::atomic<int> dying_signal_{0};
  // write_after_abort_handler: tickets asked, and the last one the writer has served.
  std::atomic<uint32_t> writes_asked_{0};
  FutexWord writes_done_;
  bool said_abort_handler_write_ = false;  // the writer's
};

using cprof::monotonic_ns;  // common/monotonic.h

// pthread_atfork handlers that take the running Runtime across fork. Every preloaded
// runtime library registers them once its Runtime has started.
void register_fork_handlers();

}  // namespace cprof::sampler
