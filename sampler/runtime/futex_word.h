#pragma once
// A 32-bit word one thread sleeps on until another changes it and wakes it: a futex, so
// that changing the word and waking the sleeper are async-signal-safe (a condition
// variable's notify is not). The runtime's writer sleeps on one between drains, and a
// thread that needs everything written before the process ends (a terminating signal,
// _exit) wakes it at once instead of waiting up to a drain interval, then sleeps on a
// second word until the writer says it is done.
//
// The system call goes through libc's syscall() looked up past the interposers (the causal
// runtime interposes syscall() to see the program's futex waits; these are not the
// program's). After fork the words are plain memory, with no sleepers to inherit.

#include <atomic>
#include <cstdint>

namespace cprof::sampler {

class FutexWord {
 public:
  uint32_t load() const noexcept { return word_.load(std::memory_order_acquire); }
  void store(uint32_t value) noexcept { word_.store(value, std::memory_order_release); }
  bool compare_exchange(uint32_t& expected, uint32_t desired) noexcept {
    return word_.compare_exchange_strong(expected, desired, std::memory_order_acq_rel);
  }
  // Adds one and wakes every sleeper: "look again".
  void bump_and_wake() noexcept;
  // Wakes every sleeper (after store or compare_exchange).
  void wake_all() noexcept;
  // Sleeps while the word holds `seen`, for at most `timeout_ns`; returns at once if it
  // holds something else. May return early (a wake for another change): callers look at
  // the word again.
  void wait_while(uint32_t seen, uint64_t timeout_ns) const noexcept;

 private:
  std::atomic<uint32_t> word_{0};
};

}  // namespace cprof::sampler
