#pragma once
// Threads waiting for the GPU, as the GPU tools libraries report them through the C entry
// point of device_wait_api.h: the runtime's side (DelayAccounting::device_wait_begin /
// _end on the calling thread's delays) and its counters, reported at the end of the run.

#include <cstdint>
#include <string>

namespace cprof::causal {

struct DeviceWaitCounts {
  uint64_t waits = 0;    // outermost waits of registered threads
  uint64_t wait_ns = 0;  // time inside them
  uint64_t samples = 0;  // CPU-time samples taken inside them (not counted as line work)
};
DeviceWaitCounts device_wait_counts();

// A sample fell inside a device wait. Signal-safe.
void note_device_wait_sample();

// The end-of-run info message, or "" when no wait was seen. The tests parse its
// "GPU waits seen: N" prefix.
std::string device_wait_summary();

}  // namespace cprof::causal
