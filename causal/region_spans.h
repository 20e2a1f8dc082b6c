#pragma once
// Per-call spans of timed regions (latency points whose begin and end ran on one thread),
// for the chrome trace: each call's (point, thread, begin, end), handed from the program's
// threads to the writer thread, which writes them as region_spans records
// (docs/results-format.md).
//
// The program's thread must never wait for the profiler, so the hand-over is a bounded
// multi-producer ring (Vyukov's bounded queue) with one consumer, the writer thread:
//   - push() is lock-free, allocation-free and async-signal-safe (a handler that interrupts
//     a push on its thread claims another slot). A full ring drops the span and counts it.
//   - Only the first `cap` calls get a ticket: a long run would otherwise write millions of
//     spans that no trace viewer opens. Past the cap a push is one relaxed load of a
//     counter that no longer changes (a shared cache line, not a contended one), and the
//     region summary (ProgressPoint::region) still counts every call.
//   - pop() is for one consumer at a time. A producer between claiming a slot and filling
//     it holds up the consumer at that slot until it is filled (the next drain gets it):
//     the consumer never waits either.
// Memory is allocated once, by the constructor, in normal context.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace cprof::causal {

struct SpanEntry {
  uint32_t point_id = 0;  // ProgressPoint::id
  int32_t tid = 0;        // Linux tids fit (pid_max <= 2^22)
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;
};

class RegionSpanRing {
 public:
  // Default of CPROF_CAUSAL_REGION_SPANS: spans kept per process.
  static constexpr uint64_t kDefaultCap = 100'000;
  // Slots: at 32 bytes, 256 KiB; the writer drains every 20 ms, so about 400 000 calls
  // a second go through before any is dropped.
  static constexpr size_t kDefaultSlots = 8192;

  // `slots` is rounded up to a power of two (at least 2).
  explicit RegionSpanRing(uint64_t cap, size_t slots = kDefaultSlots);
  RegionSpanRing(const RegionSpanRing&) = delete;
  RegionSpanRing& operator=(const RegionSpanRing&) = delete;

  enum class Push { recorded, over_cap, full };
  // Any thread, signal handlers too. Never blocks, never allocates.
  Push push(const SpanEntry& span);
  // The consumer: the oldest filled span, or false when there is none (yet).
  bool pop(SpanEntry& out);

  uint64_t cap() const { return cap_; }
  // Calls that got a ticket (at most cap): recorded + dropped_full.
  uint64_t tickets() const;
  // Ticketed calls dropped because the ring was full.
  uint64_t dropped_full() const { return full_.load(std::memory_order_relaxed); }
  uint64_t recorded() const { return tickets() - dropped_full(); }

 private:
  struct Slot {
    std::atomic<uint64_t> sequence{0};
    SpanEntry span;
  };

  const uint64_t cap_;
  const size_t mask_;
  std::unique_ptr<Slot[]> slots_;
  alignas(64) std::atomic<uint64_t> claimed_{0};  // tickets handed out (may pass cap a little)
  alignas(64) std::atomic<uint64_t> tail_{0};     // producers' next position
  alignas(64) std::atomic<uint64_t> full_{0};
  alignas(64) uint64_t head_ = 0;                 // the consumer's next position
};

}  // namespace cprof::causal
