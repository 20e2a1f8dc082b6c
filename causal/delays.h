#pragma once
// Virtual-speedup delay accounting (Coz, SOSP 2015, section 3; docs/causal.md).
//
// While an experiment runs with speedup s and sampling period P, every sample whose call
// stack holds the selected location adds d = s*P to its thread's local delay count: the
// thread ran selected code, and in the virtual sped-up program it would have been d
// further ahead. Every other thread must then pause d. The global count is the total
// delay the program's timeline has been shifted by; a thread whose local count is behind
// it owes the difference and pays by sleeping. A thread whose local count is ahead (it
// ran the selected code itself) pushes the global count up to its own: the global count
// is the maximum of the local counts, not their sum, because two threads running the
// selected code at the same time are sped up together and owe each other nothing.
//
// Oversleeping: a pause that overshoots its debt (the scheduler's latency, milliseconds on
// a busy machine) is banked by the thread and pays its next debts; it does not raise the
// global count. Coz raises it ("the others pause as long"), which on a busy machine
// snowballs: each thread's overshoot makes every other pause longer, they overshoot in
// turn, and the delays recorded grow far past s * P * samples (memcached under load: 927
// ms inserted for 23.5 ms of selected samples) while costing the program little progress,
// since a paused thread hands its CPU to runnable ones: phantom speedups, the measured
// gain above what the location could give (docs/causal.md, "Oversleeping").
//
// Blocking: a thread pays its debt before it blocks; woken by another thread it is credited
// with the delays inserted while it was blocked (its waker paid them before waking it); a
// thread that wakes by itself (a sleep, an I/O wait, a timeout) was not held back by
// anyone and pays them.
//
// Periods: a selected sample's delay stands for its thread's last period P, inserted at
// once at its end. Given a Clock, the accounting logs the time span of each selected
// sample of a thread that spends its periods in the location (selected_sample_log.h) and
// splits the delay of a sample whose span a block or a wake-up falls in: a thread woken
// by another is credited only the part of each such sample's span during which it was
// blocked, and owes the part it ran through, before its block or after its wake-up. A
// thread that runs other code too is sampled in the location at random instants, and
// what the other threads do at those instants is the better evidence: its samples count
// whole, at their instant, as they all do without a Clock (docs/causal.md, "Delays
// stand for a period").
//
// Signal-safety contract (the sampling signal handler and the interposed blocking calls
// use this class):
//   - on_sample(), on_sample_in_selected(), owed(), pay(), before_block(),
//     before_wake_other(), after_woken_by_other(), after_self_wake(), device_wait_begin(),
//     device_wait_end(), in_device_wait(), runtime_wait_begin(), runtime_wait_end(),
//     in_runtime_wait(), global_ns(), and every ThreadDelay member are async-signal-safe
//     and lock-free: atomics only, no allocation, no locks, no stdio. The only system
//     calls are the injected Sleeper's (nanosleep) and Clock's (clock_gettime).
//   - The wake-up fields of a ThreadDelay (wake_pending and the ones it publishes) are
//     written by after_woken_by_other() in the owner's normal context, wake_pending
//     cleared first and set last, and read by pay() under its guard: a handler that
//     arrives in between settles the previous wake-up or none.
//   - They may interrupt each other on the same thread (a signal arriving while an
//     interposed call pays): pay() is guarded per thread, so a handler that interrupts a
//     payment does not pay the same debt twice; it returns 0 and the interrupted payment
//     finishes it.
//   - begin_experiment() and end_experiment() are for the controller thread (normal
//     context); they are lock-free too, but are not meant to run in a handler.
//   - A ThreadDelay belongs to one thread: only that thread (and its own signal
//     handlers) may pass it to the functions above. Allocate it outside signal context.

#include <atomic>
#include <cstdint>

#include "causal/clock.h"
#include "causal/selected_sample_log.h"

namespace cprof::causal {

// One thread's delay state. Allocate it when the thread is registered (not in a handler).
struct ThreadDelay {
  std::atomic<uint64_t> local_ns{0};      // delays this thread has inserted or paid
  uint64_t global_at_block_ns = 0;        // global count when the thread last blocked
  std::atomic<bool> paying{false};        // set while pay() sleeps on this thread
  std::atomic<uint64_t> epoch{0};         // the experiment its local count belongs to
  // Totals, for the experiment record and tests (owner-written, read by anyone).
  std::atomic<uint64_t> selected_samples{0};
  std::atomic<uint64_t> paid_ns{0};       // time really slept paying debts
  std::atomic<uint64_t> credited_ns{0};   // delays skipped because another thread woke it
  std::atomic<uint64_t> pays{0};          // sleeps taken
  // Slept beyond its debts in this experiment (a sleep overshoots by the scheduler's
  // latency): paid in advance of its next debts, never a delay of the other threads.
  std::atomic<uint64_t> overslept_ns{0};
  // Device (GPU) waits the thread is inside, nested calls counted (device_wait_begin).
  // While non-zero the thread is blocked on the device: the blocking rules, pay() and
  // selected samples leave it alone. Written by the thread, read by its own handler.
  std::atomic<uint32_t> device_waits{0};
  // Waits inside a parallel runtime (OpenMP barriers, the thread pool's dock, critical
  // sections: runtime_wait_begin), nested calls counted, and the global count when the
  // outermost began. Written by the thread, read by its own handler.
  std::atomic<uint32_t> runtime_waits{0};
  uint64_t global_at_runtime_wait_ns = 0;
  // Waits for other processes of the job (peer_wait_begin: an MPI rank in MPI_Allreduce),
  // nested calls counted. Written by the thread, read by its own handler.
  std::atomic<uint32_t> peer_waits{0};
  // The host's imported total (import_job_count) when the outermost peer wait began.
  uint64_t imported_at_peer_wait_ns = 0;
  // Times, with a Clock (delays.h, "Periods"); owner-written. Since when the thread runs
  // (it started or last woke) and when it last blocked.
  uint64_t running_since_ns = 0;
  uint64_t blocked_at_ns = 0;
  // Woken by another thread: samples taken after the wake-up whose periods reach back
  // into the block [wake_blocked_from_ns, woken_at_ns] are credited for that part when
  // the thread next pays, until a period has passed. The global count up to which that is
  // settled, and the experiment it belongs to. Set last by the owner (release), read by
  // its own pay() (and so by its handler).
  std::atomic<bool> wake_pending{false};
  uint64_t wake_blocked_from_ns = 0;
  uint64_t woken_at_ns = 0;
  uint64_t wake_settled_global_ns = 0;
  uint64_t wake_epoch = 0;
  // The thread's samples in the running experiment (on_sample), and those in the selected
  // location: whether the location fills its thread's periods ("Periods" above).
  std::atomic<uint32_t> experiment_samples{0};
  std::atomic<uint32_t> experiment_selected{0};
};

class DelayAccounting {
 public:
  // With a clock, delays are split at blocks and wake-ups by time ("Periods" above).
  explicit DelayAccounting(Sleeper sleeper, Clock clock = {}) : sleeper_(sleeper), clock_(clock) {}
  DelayAccounting(const DelayAccounting&) = delete;
  DelayAccounting& operator=(const DelayAccounting&) = delete;

  // Starts inserting delays: a selected sample adds speedup * period_ns. Controller only.
  // Returns the global count at the start (the experiment's delay is the difference).
  uint64_t begin_experiment(double speedup, uint64_t period_ns);
  // Stops inserting delays; threads behind skip their debt at their next call (between
  // experiments nobody pays). Returns the global count at the end.
  uint64_t end_experiment();
  bool active() const { return active_.load(std::memory_order_acquire); }
  // The delay one selected sample adds in the running experiment (0 when none runs).
  uint64_t delay_per_sample_ns() const { return delay_per_sample_.load(std::memory_order_relaxed); }

  // A sample of `thread` fell in the selected location: local += speedup * period, then
  // the global count is raised to the thread's local count if it is behind it. The
  // arguments are the experiment's own (the handler passes what it sampled with); with
  // no experiment running nothing is added. Returns the delay added.
  uint64_t on_sample_in_selected(ThreadDelay& thread, double speedup, uint64_t period_ns);
  // Same, with the running experiment's own speedup and period.
  uint64_t on_sample_in_selected(ThreadDelay& thread);

  // Every sample the thread counts in an experiment, selected or not (before
  // on_sample_in_selected): the share of its samples in the location decides whether its
  // selected samples are split by time ("Periods" above).
  void on_sample(ThreadDelay& thread);

  // What the thread owes: global - local, or 0 when it is not behind.
  uint64_t owed(const ThreadDelay& thread) const;

  // Sleeps what the thread owes (through the Sleeper) and credits what was really slept;
  // an oversleep moves the global count up so the other threads pause as much (an equal
  // pause of every thread is neutral in virtual time). With no experiment running the
  // thread's debt is forgiven instead (local := global). Returns the time slept.
  uint64_t pay(ThreadDelay& thread);

  // The thread is about to block (mutex lock, cond wait, join, futex wait, sleep, read):
  // pays what it owes, then remembers the global count. Returns it.
  uint64_t before_block(ThreadDelay& thread);
  // The thread is about to wake another (unlock, signal, broadcast, futex wake, post):
  // it pays what it owes first, so the woken thread, credited below, is not ahead of it.
  uint64_t before_wake_other(ThreadDelay& thread) { return pay_outside_runtime_wait(thread); }
  // The thread is about to try a lock it may take at once, without blocking: it pays what
  // it owes, as before a block, so the debt is not paid inside the critical section.
  uint64_t before_lock_attempt(ThreadDelay& thread) { return pay_outside_runtime_wait(thread); }
  // The thread was woken by another thread: credit the delays inserted since it blocked.
  // `global_at_block` is what before_block() returned. Returns the credit.
  uint64_t after_woken_by_other(ThreadDelay& thread, uint64_t global_at_block);
  uint64_t after_woken_by_other(ThreadDelay& thread) {
    return after_woken_by_other(thread, thread.global_at_block_ns);
  }
  // The thread woke by itself (timeout, sleep, I/O): nobody paid for it; it pays now.
  uint64_t after_self_wake(ThreadDelay& thread);

  // Waiting for a device (a GPU synchronize or signal wait: docs/causal.md "Waiting for
  // the GPU"). begin: the thread blocks (before_block: it pays what it owes first). end:
  // the device woke it, an agent the experiment did not slow, so nobody paid for it: it
  // pays the delays inserted meanwhile (after_self_wake). Nested waits (a runtime call
  // inside another) count once, the outermost. While inside, the thread's other blocking
  // calls (the runtime's own futex or condvar waits, woken by the runtime's threads),
  // pay() from the handler and selected samples do nothing: its wait is one block.
  void device_wait_begin(ThreadDelay& thread);
  void device_wait_end(ThreadDelay& thread);
  static bool in_device_wait(const ThreadDelay& thread) {
    return thread.device_waits.load(std::memory_order_relaxed) != 0;
  }

  // Waiting inside a parallel runtime for other program threads (docs/causal.md "Waits
  // that spin"): libgomp spins before it sleeps in the kernel, so to the sampler a
  // waiting thread looks busy; without these calls it would pay every delay inserted
  // while it waits and be late when released. begin: the thread is about to wait; it
  // pays what it owes (before_block) and remembers the global count. end: another
  // program thread released it (the last one at the barrier, the one that left the
  // critical section, the master that forked the next team), which paid its own debt
  // first: it is credited the delays inserted meanwhile (after_woken_by_other). Nested
  // waits count once, the outermost. Inside, the other blocking rules (the runtime's own
  // futex waits and wakes) do nothing: the wait is one block. Whether a sample inside
  // pays is the sampling step's choice (sample_step.h: spinning does not, a task the
  // runtime runs while it waits does).
  void runtime_wait_begin(ThreadDelay& thread);
  void runtime_wait_end(ThreadDelay& thread);
  static bool in_runtime_wait(const ThreadDelay& thread) {
    return thread.runtime_waits.load(std::memory_order_relaxed) != 0;
  }

  // Waiting for other processes of a job (docs/causal.md "MPI"): an MPI rank inside a
  // call that returns when other ranks get there (MPI_Wait*, MPI_Recv, the collectives).
  // A runtime wait (begin pays and remembers the global count; end credits what was
  // inserted meanwhile: the rank that released it paid first), and inside it every
  // sample does nothing (the MPI library polls; none of it is the program's work). With
  // the global count shared by the job's ranks (share_global), the other ranks' selected
  // samples are what the waiting rank is credited.
  void peer_wait_begin(ThreadDelay& thread) {
    if (thread.peer_waits.fetch_add(1, std::memory_order_relaxed) == 0) {
      runtime_wait_begin(thread);
      thread.imported_at_peer_wait_ns = imported_ns();
    }
  }
  void peer_wait_end(ThreadDelay& thread) {
    const uint32_t n = thread.peer_waits.load(std::memory_order_relaxed);
    if (n == 0) return;
    if (n == 1) runtime_wait_end(thread);
    thread.peer_waits.store(n - 1, std::memory_order_relaxed);
  }
  static bool in_peer_wait(const ThreadDelay& thread) {
    return thread.peer_waits.load(std::memory_order_relaxed) != 0;
  }

  // Ranks on other hosts (docs/causal.md "Delays across hosts"): at a collective every
  // rank takes part in, the MPI wrappers exchange the hosts' global counts and pass the
  // job's, the largest, to a thread inside its peer wait. The global count is raised to
  // it; what that adds was inserted elsewhere since the last exchange, at times this host
  // cannot know. The wait's own length covers it up to `waited_ns` (the thread was held
  // back anyway: credited, as a wait released by a rank that paid); the rest the thread
  // owes, as every other thread of the host does. Returns what this thread owes for it.
  uint64_t import_job_count(ThreadDelay& thread, uint64_t job_ns, uint64_t waited_ns);
  // Total raised by imports on this host (the ranks of a host share it: share_imported).
  uint64_t imported_ns() const { return imported().load(std::memory_order_acquire); }
  void share_imported(std::atomic<uint64_t>* shared) {
    shared_imported_.store(shared, std::memory_order_release);
  }

  // Makes the global count `shared`'s: a word in memory the processes of a job map
  // together (causal/job_lockstep.h), so that a selected sample in one rank delays the
  // threads of every rank on the host, as Coz delays every other thread of one process.
  // Call before any thread registers (the counts' starting points are the global's).
  void share_global(std::atomic<uint64_t>* shared) {
    shared_global_.store(shared, std::memory_order_release);
  }

  // A new thread starts with no debt for delays inserted before it existed.
  void thread_started(ThreadDelay& thread) {
    thread.epoch.store(epoch_.load(std::memory_order_acquire), std::memory_order_relaxed);
    thread.local_ns.store(global_ns(), std::memory_order_relaxed);
    if (timed()) thread.running_since_ns = clock_.now_ns();
  }

  uint64_t global_ns() const { return global().load(std::memory_order_acquire); }
  // Selected samples counted since the last begin_experiment().
  uint64_t selected_samples() const { return selected_samples_.load(std::memory_order_relaxed); }

 private:
  // Inside a runtime wait the thread is blocked already, and runtime_wait_end settles it.
  uint64_t pay_outside_runtime_wait(ThreadDelay& thread) {
    return in_runtime_wait(thread) ? 0 : pay(thread);
  }
  // Returns the global count before (unchanged when it was at `value` or above).
  uint64_t raise_global_to(uint64_t value);
  uint64_t insert(ThreadDelay& thread, uint64_t delay_ns, uint64_t period_ns);
  bool timed() const { return clock_.now != nullptr; }
  // Credits the samples that came after the thread's wake-up for the part of their
  // periods it spent blocked (ThreadDelay::wake_pending). Inside pay()'s guard.
  void settle_wake(ThreadDelay& thread);
  // local := min(local + credit, global); returns what was credited.
  static uint64_t credit(ThreadDelay& thread, uint64_t amount, uint64_t global);
  // A thread still counting in an earlier experiment is forgiven that experiment's debt.
  void sync_epoch(ThreadDelay& thread) const;

  // begin_experiment() stores start_global_ and then epoch_ (release); readers load
  // epoch_ (acquire) first.
  std::atomic<uint64_t> epoch_{0};
  std::atomic<uint64_t> start_global_{0};

  Sleeper sleeper_;
  Clock clock_;
  SelectedSampleLog log_;
  std::atomic<uint64_t> period_ns_{0};  // the running experiment's sampling period
  std::atomic<uint64_t>& global() const {
    std::atomic<uint64_t>* shared = shared_global_.load(std::memory_order_acquire);
    return shared != nullptr ? *shared : own_global_;
  }
  std::atomic<uint64_t>& imported() const {
    std::atomic<uint64_t>* shared = shared_imported_.load(std::memory_order_acquire);
    return shared != nullptr ? *shared : own_imported_;
  }
  mutable std::atomic<uint64_t> own_global_{0};
  mutable std::atomic<uint64_t> own_imported_{0};
  std::atomic<std::atomic<uint64_t>*> shared_imported_{nullptr};
  std::atomic<std::atomic<uint64_t>*> shared_global_{nullptr};  // the job's (share_global)
  std::atomic<uint64_t> delay_per_sample_{0};
  std::atomic<uint64_t> selected_samples_{0};
  std::atomic<bool> active_{false};
};

}  // namespace cprof::causal
