#pragma once
// The call stack of the thread that submits GPU work, captured in a normal context (the
// submitting thread itself, inside the GPU runtime's API call), with the project's fast
// DWARF unwinder (sampler/unwind/cfi_unwinder.h: .eh_frame rows parsed when a module is
// first seen, libunwind for the frames they do not model). The frames of the GPU hooks themselves are left out, so frames[0]
// is the return address into the GPU runtime (or the application) that called them;
// every frame is a return address (a symbolizer looks each up at address - 1).
//
// Not async-signal-safe (it may refresh the module table); thread-safe.

#include <cstddef>
#include <cstdint>

#include "sampler/unwind/module_table.h"

namespace cprof::gpu {

class LaunchStacks {
 public:
  // max_depth: deepest stack recorded; enabled = false makes capture() return 0 (the
  // overhead benchmark's "no stacks" mode, CPROF_GPU_STACKS=0).
  LaunchStacks(size_t max_depth, bool enabled);
  ~LaunchStacks();
  LaunchStacks(const LaunchStacks&) = delete;
  LaunchStacks& operator=(const LaunchStacks&) = delete;

  bool enabled() const noexcept { return enabled_; }
  size_t max_depth() const noexcept { return max_depth_; }
  sampler::ModuleTable& modules() noexcept { return modules_; }

  // Writes up to max_depth() frames of the calling thread's stack; returns how many.
  size_t capture(uint64_t* frames) noexcept;

 private:
  sampler::ModuleTable modules_;
  size_t max_depth_;
  bool enabled_;
  bool unwinder_ok_ = false;
  uint64_t self_lo_ = 0;  // the code of this library: frames there are the hooks' own
  uint64_t self_hi_ = 0;
};

}  // namespace cprof::gpu
