#pragma once
// Telling the causal runtime that the calling thread waits for the GPU (the C entry point
// of causal/runtime/device_wait_api.h), so a causal run counts the wait as blocked and not
// as CPU work of the line that waits. Without the causal runtime in the process
// (sample-run, no profiler) nothing is found and nothing happens; the tools then leave
// the wait functions alone (causal_runtime_present()).

#include "causal/runtime/device_wait_api.h"

namespace cprof::gpu {

// Looks the entry point up (dlsym(RTLD_DEFAULT, ...)); call once, at the tool's start,
// before any wait is wrapped. Returns whether it was found.
bool find_causal_runtime();
bool causal_runtime_present();

// The wait, as a scope: begin on construction, end on destruction (both no-ops without
// the causal runtime). Keeps errno.
class CausalDeviceWait {
 public:
  CausalDeviceWait();
  ~CausalDeviceWait();
  CausalDeviceWait(const CausalDeviceWait&) = delete;
  CausalDeviceWait& operator=(const CausalDeviceWait&) = delete;

 private:
  const cprof_device_wait_api* api_;
};

// For callbacks that see a wait's entry and exit separately (CUPTI).
void causal_device_wait_begin();
void causal_device_wait_end();

}  // namespace cprof::gpu
