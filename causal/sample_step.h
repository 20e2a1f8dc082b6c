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
//
// Signal-safety contract: causal_sample() is async-signal-safe (atomics and the
// DelayAccounting's sleeper only).

#include <cstdint>
#include <span>

#include "causal/delays.h"
#include "causal/location.h"

namespace cprof::causal {

struct SampleStep {
  DelayAccounting& delays;
  const Location* selected = nullptr;         // the running experiment's, or null
  const LocationTable* auto_table = nullptr;  // automatic selection: where to look; else null
  RecentLocations* recent = nullptr;          // ... and where to note it
};

enum class SampleOutcome : uint8_t {
  counted,         // steps 1-3 done
  in_device_wait,  // the thread waits for a device: nothing done
};

SampleOutcome causal_sample(const SampleStep& step, ThreadDelay& thread,
                            std::span<const uint64_t> stack);

}  // namespace cprof::causal
