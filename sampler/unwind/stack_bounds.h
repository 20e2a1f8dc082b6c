#pragma once
// Stack bounds of one thread, used by the unwinders to check every stack read.
//
// Signal-safety contract:
//   - current_thread_stack_bounds() is NOT async-signal-safe (pthread_getattr_np reads
//     /proc/self/maps for the main thread and may allocate). Call it when the thread is
//     registered, outside any handler, and keep the result in the per-thread state.
//   - StackBounds::readable() and every other member are async-signal-safe.

#include <cstddef>
#include <cstdint>

namespace cprof::sampler {

// [lo, hi) of a thread's stack. An empty value (lo == hi == 0) means "unknown": the
// unwinders then read nothing from the stack and return the interrupted PC only.
struct StackBounds {
  uint64_t lo = 0;
  uint64_t hi = 0;

  bool empty() const noexcept { return hi <= lo; }
  // True if [addr, addr + len) lies in the stack. Async-signal-safe.
  bool contains(uint64_t addr, uint64_t len) const noexcept {
    return addr >= lo && addr <= hi && len <= hi - addr;
  }
  // The part of the stack that can be live for a thread whose stack pointer is `sp`:
  // [sp - 128 (the x86-64 red zone), hi). Reads below that are never needed to unwind,
  // and for the main thread the pages there may not be mapped yet (the stack grows on
  // demand), so clamping keeps a corrupt frame from touching them. An sp outside the
  // bounds (alternate signal stack, fiber, garbage) gives an empty range.
  StackBounds live_part(uint64_t sp) const noexcept {
    constexpr uint64_t kRedZone = 128;
    if (sp < lo || sp >= hi) return {};
    uint64_t start = sp - lo >= kRedZone ? sp - kRedZone : lo;
    return {start, hi};
  }
};

// Bounds of the calling thread's stack (pthread_getattr_np; for the main thread glibc
// derives them from /proc/self/maps and RLIMIT_STACK). Returns an empty value on error.
// Not async-signal-safe.
StackBounds current_thread_stack_bounds() noexcept;

}  // namespace cprof::sampler
