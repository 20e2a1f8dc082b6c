#pragma once
// Signal waits as GPU waits for the causal runtime (gpu/common/causal_wait.h): the
// program's waits for kernels and copies, through the API table, become blocked time in
// a causal run. docs/gpu.md "Waiting for the GPU".

#include "gpu/hsa/hsa_api.h"

namespace cprof::gpu::hsa {

// When the causal runtime is in the process (find_causal_runtime()), replaces the wait
// entries of `table` that it holds (checked against the tables' sizes) with wrappers that
// bracket the original with the causal runtime's begin/end: hsa_signal_wait_scacquire,
// _relaxed (the deprecated hsa_signal_wait_acquire reaches _scacquire's entry),
// hsa_signal_group_wait_any_scacquire, _relaxed and hsa_amd_signal_wait_any. Without it
// the table is left as it is. Returns how many entries were replaced.
int install_signal_waits(HsaApiTable* table);

}  // namespace cprof::gpu::hsa
