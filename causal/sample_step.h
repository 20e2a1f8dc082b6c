#pragma once
// What the causal runtime's sampling handler does with one CPU-time sample of a
// registered thread (docs/causal.md "The runtime"), apart from the runtime's globals so
// the tests can drive it with fake time:
//   1. automatic selection: note the first in-scope location on the stack;
//   2. the selected location on the stack: on_sample_in_selected (the thread ran it);
//   3. pay what the thread owes.
// A thread waiting for a device (DelayAccounting::in_device_wait: a GPU synchronize or
// signal wait, where runtimes often spin or yield) does none of these: the time is the
// device's work, not CPU work of the line that waits, and the thread is blocked (it pays
// when the wait returns). docs/causal.md "Waiting for the GPU".
// A thread inside a parallel runtime's wait (DelayAccounting::in_runtime_wait: an OpenMP
// barrier, the thread pool's dock) whose sample is in the runtime's own code is spinning
// for other threads: nothing either (it is credited when released). So is one in system
// code (libc, the vDSO) that the runtime called while it spins (libomp yields with
// sched_yield and reads clocks): frames in system code are skipped to find the caller.
// One whose sample is in other code is running work the runtime gave it while it waits
// (an OpenMP task inside a barrier): steps 1-3 as usual. docs/causal.md "Waits that spin".
//
// Signal-safety contract: causal_sample() is async-signal-safe (atomics and the
// DelayAccounting's sleeper only).

#include <cstdint>
#include <span>

#include "causal/delays.h"
#include "causal/location.h"

namespace cprof::causal {

// Code addresses [start, end): a loaded object's text (the parallel runtime's, where a
// waiting thread spins, or a system library's).
struct CodeRange {
  uint64_t start = 0;
  uint64_t end = 0;
  bool contains(uint64_t pc) const { return pc >= start && pc < end; }
};

struct SampleStep {
  DelayAccounting& delays;
  const Location* selected = nullptr;         // the running experiment's, or null
  const LocationTable* auto_table = nullptr;  // automatic selection: where to look; else null
  RecentLocations* recent = nullptr;          // ... and where to note it
  CodeRange runtime_code{};                   // the parallel runtime's text (or empty)
  std::span<const CodeRange> system_code{};   // libc's and the vDSO's text (or none)
  LocationTally* tally = nullptr;  // automatic end to end: also count it there; else null
};

enum class SampleOutcome : uint8_t {
  counted,         // steps 1-3 done
  in_device_wait,  // the thread waits for a device: nothing done
  in_runtime_wait, // the thread spins in a parallel runtime's wait: nothing done
};

// `stack` is innermost first: stack[0] is the interrupted instruction.
SampleOutcome causal_sample(const SampleStep& step, ThreadDelay& thread,
                            std::span<const uint64_t> stack);

}  // namespace cprof::causal
