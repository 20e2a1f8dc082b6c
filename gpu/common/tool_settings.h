#pragma once
// Settings every GPU hook reads from the environment, and the thread id they record.

#include <cstddef>
#include <cstdint>

namespace cprof::gpu {

// CPROF_DEPTH: deepest launch stack recorded (128 when unset or invalid).
size_t launch_stack_depth_from_environment();
// CPROF_GPU_STACKS=0 turns launch stacks off (the overhead benchmarks' "no stacks" mode).
bool launch_stacks_from_environment();
// The calling thread's kernel tid (cached per thread).
int64_t current_tid() noexcept;

}  // namespace cprof::gpu
