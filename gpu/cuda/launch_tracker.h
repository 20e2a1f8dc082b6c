#pragma once
// What the CUDA tool does at the entry and exit of every watched API call, on the
// launching thread: the outermost watched call captures the thread's call stack once and
// hands it to the LaunchJoin under its correlation id; a watched call nested inside it
// (the driver call under a runtime call) only adds its id as an alias.
//
// Not for signal handlers (allocates, locks). Thread-safe; the nesting state is per thread.

#include <atomic>
#include <cstdint>

#include "gpu/common/launch_stack.h"
#include "gpu/cuda/api_filter.h"
#include "gpu/cuda/launch_join.h"

namespace cprof::gpu::cuda {

class LaunchTracker {
 public:
  LaunchTracker(LaunchJoin& join, LaunchStacks& stacks) : join_(join), stacks_(stacks) {}

  void enter(ApiKind kind, uint32_t correlation_id);
  // `failed`: the call returned an error, so no activity record will name it.
  void exit(uint32_t correlation_id, bool failed);

  // A trace window opens (gpu/common/trace_windows.h): calls whose exit fell between
  // windows never came back, so every thread's nesting from before starts over.
  void new_window() { epoch_.fetch_add(1, std::memory_order_relaxed); }

 private:
  LaunchJoin& join_;
  LaunchStacks& stacks_;
  std::atomic<uint32_t> epoch_{0};
};

}  // namespace cprof::gpu::cuda
