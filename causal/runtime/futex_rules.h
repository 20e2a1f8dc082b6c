#pragma once
// Futex calls that bypass pthread (docs/causal.md, "Blocking that bypasses pthread"): which
// system calls wait, which wake, and how a wait ended. One classification for both ways
// the runtime sees them: libc's syscall() interposed (C++20 atomic wait, barrier, latch,
// semaphore; TBB) and the Syscall User Dispatch trap (libgomp's inline `syscall`
// instructions, syscall_dispatch.h). Applying the delay rules is
// syscall_with_futex_rules() (real_calls.h).
//
// Signal-safety contract: everything here is async-signal-safe (pure functions, relaxed
// atomics).

#include <linux/futex.h>
#include <sys/syscall.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

namespace cprof::causal {

enum class FutexCall : uint8_t {
  other,  // not a futex, or a futex operation that neither waits nor wakes
  wait,   // may put the caller to sleep until another thread wakes it
  wake,   // wakes (or requeues) other threads' waits
};

// SYS_futex with `op` (the second argument, flags included), or SYS_futex_waitv (always a
// wait). Anything else is `other`.
constexpr FutexCall classify_futex(long number, long op) {
  if (number == SYS_futex_waitv) return FutexCall::wait;
  if (number != SYS_futex) return FutexCall::other;
  switch (static_cast<int>(op) & FUTEX_CMD_MASK) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
    case FUTEX_WAIT_REQUEUE_PI:
      return FutexCall::wait;
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET:
    case FUTEX_WAKE_OP:
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
    case FUTEX_CMP_REQUEUE_PI:
    case FUTEX_UNLOCK_PI:
      return FutexCall::wake;
    default:
      return FutexCall::other;
  }
}

enum class WaitEnd : uint8_t {
  woken_by_other,  // returned 0 (or a waitv index): a wake ended it -> credited
  self_wake,       // ETIMEDOUT or EINTR: nobody in the program woke it -> pays
  did_not_sleep,   // EAGAIN (the word had changed) or another error: nothing
};

// How a futex wait ended, from libc syscall()'s result (-1 and errno on failure).
constexpr WaitEnd classify_wait_end(long rc, int error) {
  if (rc >= 0) return WaitEnd::woken_by_other;
  if (error == ETIMEDOUT || error == EINTR) return WaitEnd::self_wake;
  return WaitEnd::did_not_sleep;
}

// Which way a futex call reached the runtime.
enum class FutexPath : uint8_t { syscall_function = 0, dispatch = 1 };

// Counts of the futex calls the rules were applied to, per path (the end-of-run message).
struct FutexCounts {
  std::atomic<uint64_t> waits[2] = {};
  std::atomic<uint64_t> wakes[2] = {};
  std::atomic<uint64_t> other_syscalls = {};  // trapped system calls that are not futexes
  void count(FutexPath path, FutexCall call) {
    const auto i = static_cast<unsigned>(path);
    if (call == FutexCall::wait) waits[i].fetch_add(1, std::memory_order_relaxed);
    if (call == FutexCall::wake) wakes[i].fetch_add(1, std::memory_order_relaxed);
    if (call == FutexCall::other && path == FutexPath::dispatch) {
      other_syscalls.fetch_add(1, std::memory_order_relaxed);
    }
  }
};

}  // namespace cprof::causal
