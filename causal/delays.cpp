#include "causal/delays.h"

#include <cmath>

namespace cprof::causal {
namespace {

// local := max(local, value). Lock-free; safe against the thread's own signal handler.
void raise_to(std::atomic<uint64_t>& a, uint64_t value) {
  uint64_t cur = a.load(std::memory_order_relaxed);
  while (cur < value && !a.compare_exchange_weak(cur, value, std::memory_order_acq_rel)) {
  }
}

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

void DelayAccounting::raise_global_to(uint64_t value) { raise_to(global(), value); }

void DelayAccounting::sync_epoch(ThreadDelay& thread) const {
  const uint64_t epoch = epoch_.load(std::memory_order_acquire);
  if (thread.epoch.load(std::memory_order_relaxed) == epoch) return;
  // Debts from an earlier experiment are not paid in this one: catch up to the global
  // count as it was when this experiment began.
  raise_to(thread.local_ns, start_global_.load(std::memory_order_relaxed));
  thread.overslept_ns.store(0, std::memory_order_relaxed);
  thread.epoch.store(epoch, std::memory_order_relaxed);
}

uint64_t DelayAccounting::on_sample_in_selected(ThreadDelay& thread, double speedup,
                                                uint64_t period_ns) {
  // Waiting for the GPU is not running the selected code, even when the runtime spins.
  if (!active() || in_device_wait(thread)) return 0;
  const double d_real = std::max(0.0, speedup) * static_cast<double>(period_ns);
  const auto d = static_cast<uint64_t>(std::llround(d_real));
  sync_epoch(thread);
  const uint64_t local = thread.local_ns.fetch_add(d, std::memory_order_acq_rel) + d;
  raise_global_to(local);
  thread.selected_samples.fetch_add(1, std::memory_order_relaxed);
  selected_samples_.fetch_add(1, std::memory_order_relaxed);
  return d;
}

uint64_t DelayAccounting::on_sample_in_selected(ThreadDelay& thread) {
  if (!active()) return 0;
  // speedup * period is precomputed: pass it as speedup 1 of a period of that length.
  return on_sample_in_selected(thread, 1.0, delay_per_sample_.load(std::memory_order_relaxed));
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
  PayGuard guard(thread);
  if (!guard.owner()) return 0;
  if (!active()) {
    raise_to(thread.local_ns, global_ns());  // between experiments debts are forgiven
    return 0;
  }
  sync_epoch(thread);
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
  return g;
}

uint64_t DelayAccounting::after_woken_by_other(ThreadDelay& thread, uint64_t global_at_block) {
  // Inside a device wait the runtime's own threads may wake this one, but they only pass
  // on the device's completion: no credit (device_wait_end makes it pay instead).
  if (in_device_wait(thread) || in_runtime_wait(thread)) return 0;
  sync_epoch(thread);
  const uint64_t global = global_ns();
  if (global <= global_at_block) return 0;
  const uint64_t credit = global - global_at_block;
  // local := min(local + credit, global): a debt the thread had before it blocked stays
  // owed, and a credit never puts it ahead of the global count (which would make every
  // other thread pause for nothing).
  uint64_t cur = thread.local_ns.load(std::memory_order_relaxed);
  uint64_t next = 0;
  do {
    if (cur >= global) return 0;
    next = std::min(cur + credit, global);
  } while (!thread.local_ns.compare_exchange_weak(cur, next, std::memory_order_acq_rel));
  thread.credited_ns.fetch_add(next - cur, std::memory_order_relaxed);
  return next - cur;
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
