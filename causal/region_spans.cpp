#include "causal/region_spans.h"

#include <algorithm>
#include <bit>

namespace cprof::causal {

RegionSpanRing::RegionSpanRing(uint64_t cap, size_t slots)
    : cap_(cap),
      mask_(std::bit_ceil(std::max<size_t>(slots, 2)) - 1),
      slots_(std::make_unique<Slot[]>(mask_ + 1)) {
  // Slot i is free for the producer at position i (its sequence equals the position).
  for (size_t i = 0; i <= mask_; ++i) slots_[i].sequence.store(i, std::memory_order_relaxed);
}

uint64_t RegionSpanRing::tickets() const {
  return std::min(claimed_.load(std::memory_order_relaxed), cap_);
}

RegionSpanRing::Push RegionSpanRing::push(const SpanEntry& span) {
  // Past the cap the counter stops moving: a load, no write, for every later call.
  if (claimed_.load(std::memory_order_relaxed) >= cap_) return Push::over_cap;
  if (claimed_.fetch_add(1, std::memory_order_relaxed) >= cap_) return Push::over_cap;
  uint64_t pos = tail_.load(std::memory_order_relaxed);
  for (;;) {
    Slot& slot = slots_[pos & mask_];
    const uint64_t seq = slot.sequence.load(std::memory_order_acquire);
    const auto diff = static_cast<int64_t>(seq - pos);
    if (diff == 0) {
      if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
        slot.span = span;
        slot.sequence.store(pos + 1, std::memory_order_release);  // filled: the consumer's
        return Push::recorded;
      }
      // pos was reloaded by the failed exchange: try the new position.
    } else if (diff < 0) {
      // The slot still holds a span from one lap ago: full. Drop rather than wait.
      full_.fetch_add(1, std::memory_order_relaxed);
      return Push::full;
    } else {
      pos = tail_.load(std::memory_order_relaxed);  // another producer took it
    }
  }
}

bool RegionSpanRing::pop(SpanEntry& out) {
  Slot& slot = slots_[head_ & mask_];
  if (slot.sequence.load(std::memory_order_acquire) != head_ + 1) return false;
  out = slot.span;
  // Free for the producer one lap ahead.
  slot.sequence.store(head_ + mask_ + 1, std::memory_order_release);
  ++head_;
  return true;
}

}  // namespace cprof::causal
