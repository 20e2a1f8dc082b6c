#pragma once
// A single-producer, single-consumer byte ring for one thread's samples.
// Producer: the sampling signal handler on that thread. Consumer: the writer thread.
//
// Signal-safety contract: push() is async-signal-safe (no allocation, no
// locks, only memcpy and atomics) but NOT re-entrant: the handler guards against nesting itself.
// pop() runs on the writer thread only. A sample that does not fit is dropped by the
// caller and counted, never waited for.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cprof::sampler {

// Fixed part of one stored sample; counters and frames follow it in the ring.
struct SampleHeader {
  uint32_t size;      // bytes of the whole entry, header included
  uint16_t frames;    // number of uint64_t frames after the counters
  uint8_t counters;   // number of uint64_t counter deltas after the header
  uint8_t flags;      // bit 0: wall clock; bit 1: stack truncated
  uint64_t time_ns;   // CLOCK_MONOTONIC
  uint64_t weight_ns;
};

class SampleRing {
 public:
  static constexpr uint32_t kWallFlag = 1;
  static constexpr uint32_t kTruncatedFlag = 2;

  // capacity must be a power of two; storage is owned by the caller and outlives the ring.
  void init(uint8_t* storage, size_t capacity) {
    data_ = storage;
    mask_ = capacity - 1;
    head_.store(0, std::memory_order_relaxed);
    tail_.store(0, std::memory_order_relaxed);
  }

  // stored_past_half: this sample took the ring past half its capacity (once per
  // crossing), so the producer may wake the consumer before its next tick.
  enum class Push : uint8_t { stored, stored_past_half, full };

  Push push(const SampleHeader& header, const uint64_t* counters, const uint64_t* frames) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    const uint64_t tail = tail_.load(std::memory_order_acquire);
    const uint64_t used = head - tail;
    const uint64_t capacity = mask_ + 1;
    if (header.size > capacity - used) return Push::full;
    uint64_t pos = head;
    copy_in(pos, &header, sizeof header);
    pos += sizeof header;
    copy_in(pos, counters, header.counters * sizeof(uint64_t));
    pos += header.counters * sizeof(uint64_t);
    copy_in(pos, frames, header.frames * sizeof(uint64_t));
    head_.store(head + header.size, std::memory_order_release);
    const bool crossed = 2 * used <= capacity && 2 * (used + header.size) > capacity;
    return crossed ? Push::stored_past_half : Push::stored;
  }

  // Copies the next sample out. counters/frames must hold 255 and 65535 entries at most
  // (the header's field widths); callers size them from the runtime's depth limit.
  bool pop(SampleHeader& header, uint64_t* counters, size_t max_counters, uint64_t* frames,
           size_t max_frames) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    const uint64_t head = head_.load(std::memory_order_acquire);
    if (head == tail) return false;
    uint64_t pos = tail;
    copy_out(pos, &header, sizeof header);
    pos += sizeof header;
    const size_t nc = header.counters < max_counters ? header.counters : max_counters;
    copy_out(pos, counters, nc * sizeof(uint64_t));
    pos += header.counters * sizeof(uint64_t);
    const size_t nf = header.frames < max_frames ? header.frames : max_frames;
    copy_out(pos, frames, nf * sizeof(uint64_t));
    header.counters = static_cast<uint8_t>(nc);
    header.frames = static_cast<uint16_t>(nf);
    tail_.store(tail + header.size, std::memory_order_release);
    return true;
  }

  bool empty() const {
    return head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire);
  }

  static uint32_t entry_size(size_t counters, size_t frames) {
    return static_cast<uint32_t>(sizeof(SampleHeader) + (counters + frames) * sizeof(uint64_t));
  }

 private:
  void copy_in(uint64_t pos, const void* src, size_t n) {
    if (n == 0) return;  // src may be null then, which memcpy does not allow
    const size_t off = pos & mask_;
    const size_t first = n < (mask_ + 1) - off ? n : (mask_ + 1) - off;
    std::memcpy(data_ + off, src, first);
    std::memcpy(data_, static_cast<const uint8_t*>(src) + first, n - first);
  }
  void copy_out(uint64_t pos, void* dst, size_t n) const {
    if (n == 0) return;
    const size_t off = pos & mask_;
    const size_t first = n < (mask_ + 1) - off ? n : (mask_ + 1) - off;
    std::memcpy(dst, data_ + off, first);
    std::memcpy(static_cast<uint8_t*>(dst) + first, data_, n - first);
  }

  uint8_t* data_ = nullptr;
  size_t mask_ = 0;
  std::atomic<uint64_t> head_{0};  // written by the producer
  std::atomic<uint64_t> tail_{0};  // written by the consumer
};

}  // namespace cprof::sampler
