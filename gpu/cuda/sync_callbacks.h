#pragma once
// The CUDA functions that block the host until the GPU has finished something, from the
// names CUPTI gives its callback ids: under causal-run the tool brackets them with the
// causal runtime's GPU wait (gpu/common/causal_wait.h), so the waiting thread counts as
// blocked and not as CPU work of the line that synchronizes. docs/gpu.md "Waiting for the
// GPU".
//   driver:  cuCtxSynchronize, cuStreamSynchronize, cuEventSynchronize
//   runtime: cudaDeviceSynchronize, cudaThreadSynchronize, cudaStreamSynchronize,
//            cudaEventSynchronize
// with any version or per-thread-stream suffix (cuStreamSynchronize_ptsz,
// cudaStreamSynchronize_v3020, ...). Not cu[da]StreamWaitEvent (the GPU waits, not the
// host) nor the queries (they return at once).

#include <string_view>

namespace cprof::gpu::cuda {

bool is_host_sync_api(std::string_view name);

// CUPTI callbacks at a sync function's entry and exit (the calling thread): the causal
// runtime's begin/end, pairing up when runtime and driver callbacks nest.
void host_sync_enter();
void host_sync_exit();

}  // namespace cprof::gpu::cuda
