#pragma once
// Extension points for a second preloaded runtime built on this one (the causal runtime,
// causal/runtime/): it links the sampling runtime in, sets its hooks before
// Runtime::start, and so reuses the per-thread sampling, the unwinding, the thread, fork
// and exec handling and the results writer. With no hooks set (sample-run) nothing
// changes.
//
// Signal-safety contract: on_sample runs in the sampling signal handler and must be
// async-signal-safe (no allocation, no locks, no stdio); it may sleep (nanosleep is
// async-signal-safe). Every other hook runs in normal context, where noted with a lock
// held: they must not call back into the Runtime.

#include <cstddef>
#include <cstdint>

namespace cprof::format {
class ResultsWriter;
}

namespace cprof::sampler {

struct ThreadState;

struct RuntimeHooks {
  // Signal handler, on the sampled thread, before a CPU-time sample is unwound: true when
  // the thread is in the hook runtime's own work (the causal runtime paying a delay), which
  // is not the program's: the sample is left out (not stored, on_sample not called), and
  // the hook counts what it left out. Async-signal-safe.
  bool (*leave_out_sample)(ThreadState& thread, uint64_t weight_ns) = nullptr;
  // Signal handler, on the sampled thread, after a CPU-time sample was unwound and stored
  // (wall-clock samples are not passed). frames[0] is the interrupted PC, frames[1..]
  // return addresses. ThreadState::in_handler is set while it runs.
  void (*on_sample)(ThreadState& thread, const uint64_t* frames, size_t depth,
                    uint64_t weight_ns) = nullptr;
  // A thread was registered, before it is armed: on the thread itself (pthread_create
  // trampoline, the main thread at start) or, for threads found in /proc at start, on the
  // main thread. The hook may allocate and set ThreadState::extension.
  void (*on_thread_registered)(ThreadState& thread) = nullptr;
  // On the exiting thread itself (pthread key destructor), before its sources close.
  void (*on_thread_exit)(ThreadState& thread) = nullptr;
  // Writer thread, registry and writer locked: the state is about to be freed; free
  // what the hook put in ThreadState::extension.
  void (*on_thread_freed)(ThreadState& thread) = nullptr;
  // Before fork, on the forking thread, after the runtime took its own locks: take the
  // hook's locks that other threads hold while they change shared state, so the child
  // never inherits them held or the state half changed.
  void (*on_fork_prepare)() = nullptr;
  // Right after fork, in the parent and in the child (first thing there): release what
  // on_fork_prepare took.
  void (*on_fork_release)() = nullptr;
  // In a forked child, once the runtime runs again there (new file, new writer thread).
  void (*on_fork_child)() = nullptr;
  // After a dlopen/dlclose that loaded or unloaded an object, on the calling thread, once
  // the module list is refreshed and before the new modules' records are written.
  void (*on_modules_changed)() = nullptr;
  // Before exec, on the thread that execs, before the image's last drain: queue what the
  // image's end would have written (the new image writes a file of its own, and this
  // one's exit path never runs). If exec fails, the process goes on and ends as usual.
  void (*on_exec)() = nullptr;
  // With the results writer locked (the writer thread's drain, before exec, at stop):
  // add the hook's own records.
  void (*on_drain)(format::ResultsWriter& writer) = nullptr;
  // On the writer thread, when the process is about to end without its exit path
  // (Runtime::write_before_dying): `sig` is the terminating signal, or 0 for _exit().
  // After the runtime's final records are written, with none of its locks held: what the
  // hook does at exit, its records queued for on_drain (called once more after it). The
  // thread that ends the process waits for all of it at most a second.
  void (*on_dying)(int sig) = nullptr;
};

// Sets the hooks (they must outlive the runtime). Call before Runtime::start.
void set_runtime_hooks(const RuntimeHooks* hooks);
// The hooks set, or null. Async-signal-safe.
const RuntimeHooks* runtime_hooks();

}  // namespace cprof::sampler
