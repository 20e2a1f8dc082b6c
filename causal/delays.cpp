#include "causal/delays.h"

#include <cmath>

namespace cprof::causal {
namespace {

// a := max(a, value); returns a's value before. Lock-free; safe against the thread's own
// signal handler.
uint64_t raise_to(std::atomic<uint64_t>& a, uint64_t value) {
  uint64_t cur = a.load(std::memory_order_relaxed);
  while (cur < value && !a.compare_exchange_weak(cur, value, std::memory_order_acq_rel)) {
  }
  return cur;
}

uintptr_t id_of(const ThreadDelay& thread) { return reinterpret_cast<uintptr_t>(&thread); }

// RAII guard for ThreadDelay::paying: a nested pay() on the same thread (a signal that
// interrupts a payment) sees it set and does nothing.
class PayGuard {
 public:
  explicit PayGuard(ThreadDelay& t)
      : t_(t), owner_(!t.paying.exchange(true, std::memory_order_acquire)) {}
  ~PayGuard() {
    if (owner_) t_.paying.store(false, std::memory_order_release);
  }
  bool owner() const { return owner_; }

 private:
  ThreadDelay& t_;
  bool owner_;
};

}  // namespace

uint64_t DelayAccounting::begin_experiment(double speedup, uint64_t period_ns) {
  const double d = std::max(0.0, speedup) * static_cast<double>(period_ns);
  const uint64_t start = global().load(std::memory_order_acquire);
  delay_per_sample_.store(static_cast<uint64_t>(std::llround(d)), std::memory_order_relaxed);
  period_ns_.store(period_ns, std::memory_order_relaxed);
  selected_samples_.store(0, std::memory_order_relaxed);
  start_global_.store(start, std::memory_order_relaxed);
  epoch_.fetch_add(1, std::memory_order_release);
  active_.store(true, std::memory_order_release);
  return start;
}

uint64_t DelayAccounting::end_experiment() {
  active_.store(false, std::memory_order_release);
  delay_per_sample_.store(0, std::memory_order_relaxed);
  return global().load(std::memory_order_acquire);
}

uint64_t DelayAccounting::raise_global_to(uint64_t value) { return raise_to(global(), value); }

void DelayAccounting::sync_epoch(ThreadDelay& thread) const {
  const uint64_t epoch = epoch_.load(std::memory_order_acquire);
  if (thread.epoch.load(std::memory_order_relaxed) == epoch) return;
  // Debts from an earlier experiment are not paid in this one: catch up to the global
  // count as it was when this experiment began.
  raise_to(thread.local_ns, start_global_.load(std::memory_order_relaxed));
  thread.overslept_ns.store(0, std::memory_order_relaxed);
  thread.experiment_samples.store(0, std::memory_order_relaxed);
  thread.experiment_selected.store(0, std::memory_order_relaxed);
  thread.epoch.store(epoch, std::memory_order_relaxed);
}

uint64_t DelayAccounting::on_sample_in_selected(ThreadDelay& thread, double speedup,
                                                uint64_t period_ns) {
  // Waiting for the GPU is not running the selected code, even when the runtime spins.
  if (!active() || in_device_wait(thread)) return 0;
  const double d_real = std::max(0.0, speedup) * static_cast<double>(period_ns);
  return insert(thread, static_cast<uint64_t>(std::llround(d_real)), period_ns);
}

uint64_t DelayAccounting::on_sample_in_selected(ThreadDelay& thread) {
  if (!active() || in_device_wait(thread)) return 0;
  return insert(thread, delay_per_sample_.load(std::memory_order_relaxed),
                period_ns_.load(std::memory_order_relaxed));
}

void DelayAccounting::on_sample(ThreadDelay& thread) {
  if (!active()) return;
  sync_epoch(thread);
  thread.experiment_samples.fetch_add(1, std::memory_order_relaxed);
}

uint64_t DelayAccounting::insert(ThreadDelay& thread, uint64_t d, uint64_t period_ns) {
  sync_epoch(thread);
  const uint64_t local = thread.local_ns.fetch_add(d, std::memory_order_acq_rel) + d;
  const uint64_t before = raise_global_to(local);
  // Split by time only where the location fills its thread's periods: 90% of its samples
  // in this experiment (a caller that counts no samples: all of them).
  const uint32_t selected = thread.experiment_selected.fetch_add(1, std::memory_order_relaxed) + 1;
  const uint32_t samples =
      std::max(selected, thread.experiment_samples.load(std::memory_order_relaxed));
  if (timed() && before < local && uint64_t{selected} * 10 >= uint64_t{samples} * 9) {
    // The span its period covers: the last P of its running time, its last block (when
    // that falls in it) a hole.
    SelectedSampleLog::Span span;
    span.end_ns = clock_.now_ns();
    span.start_ns = span.end_ns > period_ns ? span.end_ns - period_ns : 0;
    const uint64_t woke = thread.running_since_ns;
    if (woke > span.start_ns && thread.blocked_at_ns < woke) {
      span.hole_lo_ns = thread.blocked_at_ns;
      span.hole_hi_ns = woke;
      const uint64_t gap = woke - thread.blocked_at_ns;
      span.start_ns = span.start_ns > gap ? span.start_ns - gap : 0;
    }
    log_.record(span, before, local, id_of(thread));
  }
  thread.selected_samples.fetch_add(1, std::memory_order_relaxed);
  selected_samples_.fetch_add(1, std::memory_order_relaxed);
  return d;
}

uint64_t DelayAccounting::owed(const ThreadDelay& thread) const {
  const uint64_t global = global_ns();
  const uint64_t local = thread.local_ns.load(std::memory_order_acquire);
  return global > local ? global - local : 0;
}

uint64_t DelayAccounting::pay(ThreadDelay& thread) {
  // Blocked on a device: a pause now would overlap the device's work and cost nothing;
  // the debt is paid when the wait returns (device_wait_end).
  if (in_device_wait(thread)) return 0;
  // Nothing owed, nothing to settle, the experiment's epoch already taken: the common
  // case, met at every lock and unlock of a program that takes a mutex in most of its
  // calls. Read only, so it needs no guard (whose exchange is a locked instruction).
  if (thread.epoch.load(std::memory_order_relaxed) == epoch_.load(std::memory_order_acquire) &&
      !(timed() && thread.wake_pending.load(std::memory_order_acquire)) && owed(thread) == 0) {
    return 0;
  }
  PayGuard guard(thread);
  if (!guard.owner()) return 0;
  if (!active()) {
    raise_to(thread.local_ns, global_ns());  // between experiments debts are forgiven
    return 0;
  }
  sync_epoch(thread);
  if (timed() && thread.wake_pending.load(std::memory_order_acquire)) settle_wake(thread);
  uint64_t debt = owed(thread);
  if (debt == 0) return 0;
  // What it overslept before pays first (delays.h, "Oversleeping").
  const uint64_t banked = std::min(debt, thread.overslept_ns.load(std::memory_order_relaxed));
  if (banked > 0) {
    thread.overslept_ns.fetch_sub(banked, std::memory_order_relaxed);
    thread.local_ns.fetch_add(banked, std::memory_order_acq_rel);
    debt -= banked;
    if (debt == 0) return 0;
  }
  const uint64_t slept = sleeper_.sleep_ns(debt);
  // The debt is paid; an overshoot is banked, not pushed onto the others.
  thread.local_ns.fetch_add(debt, std::memory_order_acq_rel);
  if (slept > debt) thread.overslept_ns.fetch_add(slept - debt, std::memory_order_relaxed);
  thread.paid_ns.fetch_add(slept, std::memory_order_relaxed);
  thread.pays.fetch_add(1, std::memory_order_relaxed);
  return slept;
}

uint64_t DelayAccounting::before_block(ThreadDelay& thread) {
  // Inside a runtime wait the thread is already blocked: runtime_wait_end settles it.
  if (in_runtime_wait(thread)) return global_ns();
  // Pay first. In virtual time the thread paused when the delays were inserted, so it
  // reaches this blocking call only after them; a debt kept through the block would be
  // paid later, often inside the critical section it is about to enter (a mutex), where
  // the pause holds every other thread back too and the prediction comes out too low.
  pay(thread);
  const uint64_t g = global_ns();
  thread.global_at_block_ns = g;
  if (timed()) thread.blocked_at_ns = clock_.now_ns();
  return g;
}

uint64_t DelayAccounting::after_self_wake(ThreadDelay& thread) {
  if (in_runtime_wait(thread)) return 0;
  if (timed()) {
    thread.wake_pending.store(false, std::memory_order_relaxed);
    thread.running_since_ns = clock_.now_ns();
  }
  return pay(thread);
}

uint64_t DelayAccounting::credit(ThreadDelay& thread, uint64_t amount, uint64_t global) {
  // local := min(local + credit, global): a debt the thread had before it blocked stays
  // owed, and a credit never puts it ahead of the global count (which would make every
  // other thread pause for nothing).
  uint64_t cur = thread.local_ns.load(std::memory_order_relaxed);
  uint64_t next = 0;
  do {
    if (cur >= global || amount == 0) return 0;
    next = std::min(cur + amount, global);
  } while (!thread.local_ns.compare_exchange_weak(cur, next, std::memory_order_acq_rel));
  thread.credited_ns.fetch_add(next - cur, std::memory_order_relaxed);
  return next - cur;
}

void DelayAccounting::settle_wake(ThreadDelay& thread) {
  const uint64_t now = clock_.now_ns();
  const uint64_t global = global_ns();
  if (thread.wake_epoch != epoch_.load(std::memory_order_acquire)) {
    thread.wake_pending.store(false, std::memory_order_relaxed);
    return;
  }
  const uint64_t blocked_part =
      log_.share_of(thread.wake_settled_global_ns, global, thread.wake_blocked_from_ns,
                    thread.woken_at_ns, id_of(thread));
  thread.wake_settled_global_ns = std::max(thread.wake_settled_global_ns, global);
  credit(thread, blocked_part, global);
  // Later samples' periods begin after the wake-up: nothing more to settle.
  if (now > thread.woken_at_ns + period_ns_.load(std::memory_order_relaxed)) {
    thread.wake_pending.store(false, std::memory_order_relaxed);
  }
}

uint64_t DelayAccounting::after_woken_by_other(ThreadDelay& thread, uint64_t global_at_block) {
  // Inside a device wait the runtime's own threads may wake this one, but they only pass
  // on the device's completion: no credit (device_wait_end makes it pay instead).
  if (in_device_wait(thread) || in_runtime_wait(thread)) return 0;
  sync_epoch(thread);
  const uint64_t global = global_ns();
  uint64_t inserted = global > global_at_block ? global - global_at_block : 0;
  if (timed()) {
    // The samples whose periods reach back before the block: the thread ran through
    // that part of them and owes it.
    inserted -= log_.share_of(global_at_block, global, thread.running_since_ns,
                              thread.blocked_at_ns, id_of(thread));
    // And the samples still to come whose periods reach back into the block are
    // credited for that part, at the thread's next payments (settle_wake).
    const uint64_t now = clock_.now_ns();
    thread.wake_pending.store(false, std::memory_order_relaxed);
    thread.wake_blocked_from_ns = thread.blocked_at_ns;
    thread.woken_at_ns = now;
    thread.wake_settled_global_ns = global;
    thread.wake_epoch = epoch_.load(std::memory_order_acquire);
    thread.running_since_ns = now;
    thread.wake_pending.store(true, std::memory_order_release);
  }
  return credit(thread, inserted, global);
}

void DelayAccounting::device_wait_begin(ThreadDelay& thread) {
  if (thread.device_waits.load(std::memory_order_relaxed) == 0) before_block(thread);
  thread.device_waits.fetch_add(1, std::memory_order_relaxed);
}

void DelayAccounting::device_wait_end(ThreadDelay& thread) {
  const uint32_t n = thread.device_waits.load(std::memory_order_relaxed);
  if (n == 0) return;  // an end without a begin (the runtime appeared in between)
  thread.device_waits.store(n - 1, std::memory_order_relaxed);
  if (n == 1) after_self_wake(thread);
}

uint64_t DelayAccounting::import_job_count(ThreadDelay& thread, uint64_t job_ns,
                                           uint64_t waited_ns) {
  if (!in_peer_wait(thread)) return 0;
  std::atomic<uint64_t>& g = global();
  uint64_t current = g.load(std::memory_order_acquire);
  while (current < job_ns && !g.compare_exchange_weak(current, job_ns, std::memory_order_acq_rel)) {
  }
  if (current < job_ns) imported().fetch_add(job_ns - current, std::memory_order_acq_rel);
  // Every import since this thread's wait began, its own and its host's other ranks' (the
  // first rank of the host to return raises the count for all of them).
  const uint64_t now = imported_ns();
  const uint64_t imported = now - thread.imported_at_peer_wait_ns;
  thread.imported_at_peer_wait_ns = now;
  const uint64_t owed = imported > waited_ns ? imported - waited_ns : 0;
  // runtime_wait_end credits global - global_at_block: counted as inserted before the
  // block, the uncovered part stays owed.
  thread.global_at_runtime_wait_ns += owed;
  return owed;
}

void DelayAccounting::runtime_wait_begin(ThreadDelay& thread) {
  if (thread.runtime_waits.load(std::memory_order_relaxed) == 0) {
    thread.global_at_runtime_wait_ns = before_block(thread);
  }
  thread.runtime_waits.fetch_add(1, std::memory_order_relaxed);
}

void DelayAccounting::runtime_wait_end(ThreadDelay& thread) {
  const uint32_t n = thread.runtime_waits.load(std::memory_order_relaxed);
  if (n == 0) return;  // an end without a begin (a new thread's first task)
  thread.runtime_waits.store(n - 1, std::memory_order_relaxed);
  if (n == 1) after_woken_by_other(thread, thread.global_at_runtime_wait_ns);
}

}  // namespace cprof::causal
