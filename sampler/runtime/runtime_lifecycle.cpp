// The runtime across process changes: fork, exec, dlopen/dlclose (docs/sampler.md).

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <new>
#include <string>

#include "sampler/runtime/hooks.h"
#include "sampler/runtime/runtime.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/thread_clock.h"
#include "sampler/unwind/loader_walk.h"

namespace cprof::sampler {

void Runtime::before_fork() {
  // Hold the locks across fork so the child never inherits them mid-operation. The
  // module table's after ours: the writer may hold it for a few ms while it parses an
  // unwind table on demand. The loader-walk lock last: walks run while the module
  // table's or the hooks' locks are held, never the other way round (loader_walk.h).
  io_mutex_.lock();
  threads_.mutex().lock();
  modules_.lock_for_fork();
  if (const RuntimeHooks* h = runtime_hooks(); h && h->on_fork_prepare) h->on_fork_prepare();
  hold_loader_walks();
  if (unwind_method_ != UnwindMethod::kFramePointers) pause_libunwind_for_fork();
}

// What before_fork took, released in reverse order: in the parent, and first thing in
// the child (where the forking thread, the holder, is the one left).
void Runtime::release_fork_locks() {
  if (unwind_method_ != UnwindMethod::kFramePointers) resume_libunwind_after_fork();
  release_loader_walks();
  if (const RuntimeHooks* h = runtime_hooks(); h && h->on_fork_release) h->on_fork_release();
  modules_.unlock_after_fork();
  threads_.mutex().unlock();
  io_mutex_.unlock();
}

void Runtime::after_fork_in_parent() { release_fork_locks(); }

void Runtime::after_fork_in_child() {
  // Only the forking thread exists here. Its perf_event fd and counters belong to the
  // parent's thread, and timers are not inherited at all.
  threads_.keep_only_current_after_fork([this](ThreadState& ts) {
    engine_->forget_after_fork(ts);
    if (wall_engine_) wall_engine_->forget_after_fork(ts);
  });
  release_fork_locks();
  writer_running_ = false;
  ThreadState* self = ThreadRegistry::current();
  pid_ = getpid();
  writer_.abandon();  // the parent's file and its buffered records are the parent's
  metrics_.reopen_after_fork();  // its /proc/self files are the parent's too
  dying_.store(0);
  if (self != nullptr) {
    self->active.store(false, std::memory_order_release);
    self->ring.init(self->ring_storage, threads_.ring_bytes());
    self->samples.store(0);
    self->dropped.store(0);
    self->announced.store(false);
    self->tid = gettid_raw();
    self->start_ns = monotonic_ns();
  }
  std::string error;
  if (!open_results_file(error)) {
    std::fprintf(stderr, "sample-run: %s; the child process %d is not profiled\n", error.c_str(),
                 pid_);
    clear_instance();
    return;
  }
  write_preamble();
  if (self != nullptr) arm(*self);
  start_writer_thread();
  if (const RuntimeHooks* h = runtime_hooks(); h && h->on_fork_child) h->on_fork_child();
}

void Runtime::before_exec() {
  if (getpid() != pid_) return;  // a vfork child shares our memory: touch nothing
  // Pending signals survive exec, and the new image has no handler for ours until its
  // runtime starts (or ever, if it is not profiled): a sampling signal queued now would
  // kill it. Silence this thread's sources, then consume what is already queued.
  // (Signals aimed at the other threads die with them.)
  if (ThreadState* self = ThreadRegistry::current()) disarm(*self);
  sigset_t ours;
  sigset_t old;
  sigemptyset(&ours);
  sigaddset(&ours, config_.signal);
  real_pthread_sigmask(SIG_BLOCK, &ours, &old);
  const timespec no_wait{0, 0};
  while (sigtimedwait(&ours, nullptr, &no_wait) > 0) {
  }
  real_pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (const RuntimeHooks* h = runtime_hooks(); h && h->on_exec) h->on_exec();
  drain(true);
  // The new image writes a file of its own: this one ends here, unless exec fails (then
  // the records that follow make it read as cut until the process ends).
  std::lock_guard lock(io_mutex_);
  writer_.finish();
}

void Runtime::after_failed_exec() {
  if (getpid() != pid_) return;
  if (ThreadState* self = ThreadRegistry::current()) arm(*self);
}

void Runtime::modules_changed() {
  // A dlopen of an object already loaded (a library asking for itself, RTLD_NOLOAD, a
  // handle to the program) changes nothing: one short walk, no snapshot, no records.
  if (!modules_.refresh_if_loader_changed()) return;
  if (const RuntimeHooks* h = runtime_hooks(); h && h->on_modules_changed) h->on_modules_changed();
  drain(false);
}

namespace {
void fork_prepare() {
  if (auto* rt = Runtime::instance()) rt->before_fork();
}
void fork_parent() {
  if (auto* rt = Runtime::instance()) rt->after_fork_in_parent();
}
void fork_child() {
  if (auto* rt = Runtime::instance()) rt->after_fork_in_child();
}
}  // namespace

void register_fork_handlers() { pthread_atfork(fork_prepare, fork_parent, fork_child); }

}  // namespace cprof::sampler
