#pragma once
// Time for the causal engine, injected: the delay accounting and the experiment controller
// never read a clock or sleep on their own, so unit tests drive them with fake time.
//
// Both are plain function pointers plus a context pointer (no std::function, no virtual
// call through a possibly half-built object): copying and calling them is
// async-signal-safe as long as the functions they point to are.

#include <cstdint>

namespace cprof::causal {

struct Clock {
  uint64_t (*now)(void* context) = nullptr;  // nanoseconds, monotonic
  void* context = nullptr;
  uint64_t now_ns() const { return now(context); }
};

// Sleeps about `ns` nanoseconds and returns how long it really slept (a real sleep can
// overshoot; the accounting credits what was really slept, see delays.h).
struct Sleeper {
  uint64_t (*sleep)(uint64_t ns, void* context) = nullptr;
  void* context = nullptr;
  uint64_t sleep_ns(uint64_t ns) const { return sleep(ns, context); }
};

// CLOCK_MONOTONIC. Async-signal-safe (clock_gettime is).
Clock monotonic_clock();

// nanosleep until `ns` have passed on CLOCK_MONOTONIC, resuming after EINTR; returns the
// time really slept. Async-signal-safe (nanosleep and clock_gettime are); errno is
// preserved.
Sleeper nanosleep_sleeper();

}  // namespace cprof::causal
