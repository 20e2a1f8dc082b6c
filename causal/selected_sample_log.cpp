#include "causal/selected_sample_log.h"

#include <algorithm>

namespace cprof::causal {

namespace {
uint64_t overlap(uint64_t a_lo, uint64_t a_hi, uint64_t b_lo, uint64_t b_hi) {
  const uint64_t lo = std::max(a_lo, b_lo);
  const uint64_t hi = std::min(a_hi, b_hi);
  return hi > lo ? hi - lo : 0;
}
}  // namespace

void SelectedSampleLog::record(const Span& span, uint64_t from, uint64_t to, uintptr_t owner) {
  uint64_t highest = highest_to_.load(std::memory_order_relaxed);
  while (highest < to &&
         !highest_to_.compare_exchange_weak(highest, to, std::memory_order_acq_rel)) {
  }
  const uint64_t claim = claims_.fetch_add(1, std::memory_order_relaxed);
  Entry& e = entries_[claim % kEntries];
  e.sequence.store(2 * claim + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  e.start_ns.store(span.start_ns, std::memory_order_relaxed);
  e.end_ns.store(span.end_ns, std::memory_order_relaxed);
  e.hole_lo_ns.store(span.hole_lo_ns, std::memory_order_relaxed);
  e.hole_hi_ns.store(span.hole_hi_ns, std::memory_order_relaxed);
  e.from.store(from, std::memory_order_relaxed);
  e.to.store(to, std::memory_order_relaxed);
  e.owner.store(owner, std::memory_order_relaxed);
  e.sequence.store(2 * (claim + 1), std::memory_order_release);
}

uint64_t SelectedSampleLog::share_of(uint64_t g_from, uint64_t g_to, uint64_t t_lo, uint64_t t_hi,
                                     uintptr_t self) const {
  if (g_to <= g_from || t_hi <= t_lo) return 0;
  if (g_from >= highest_to_.load(std::memory_order_acquire)) return 0;
  uint64_t total = 0;
  for (const Entry& e : entries_) {
    const uint64_t before = e.sequence.load(std::memory_order_acquire);
    if (before == 0 || (before & 1) != 0) continue;
    const uint64_t start = e.start_ns.load(std::memory_order_relaxed);
    const uint64_t end = e.end_ns.load(std::memory_order_relaxed);
    const uint64_t hole_lo = e.hole_lo_ns.load(std::memory_order_relaxed);
    const uint64_t hole_hi = e.hole_hi_ns.load(std::memory_order_relaxed);
    const uint64_t from = e.from.load(std::memory_order_relaxed);
    const uint64_t to = e.to.load(std::memory_order_relaxed);
    const uintptr_t owner = e.owner.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (e.sequence.load(std::memory_order_relaxed) != before) continue;  // rewritten meanwhile
    const uint64_t running = (end - start) - overlap(start, end, hole_lo, hole_hi);
    if (owner == self || end <= start || running == 0) continue;
    const uint64_t lo = std::max(from, g_from);
    const uint64_t hi = std::min(to, g_to);
    if (hi <= lo) continue;
    const uint64_t inside = overlap(start, end, t_lo, t_hi) -
                            overlap(std::max(start, hole_lo), std::min(end, hole_hi), t_lo, t_hi);
    if (inside == 0) continue;
    const double share = static_cast<double>(inside) / static_cast<double>(running);
    total += static_cast<uint64_t>(static_cast<double>(hi - lo) * share);
  }
  return std::min(total, g_to - g_from);
}

}  // namespace cprof::causal
