#include "gpu/cuda/sync_callbacks.h"

#include "gpu/common/causal_wait.h"

namespace cprof::gpu::cuda {

bool is_host_sync_api(std::string_view name) {
  for (const std::string_view base :
       {"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cudaDeviceSynchronize",
        "cudaThreadSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"}) {
    if (name == base) return true;
    if (name.starts_with(base) && name[base.size()] == '_') return true;  // _v2, _ptsz, _v3020
  }
  return false;
}

void host_sync_enter() { causal_device_wait_begin(); }
void host_sync_exit() { causal_device_wait_end(); }

}  // namespace cprof::gpu::cuda
