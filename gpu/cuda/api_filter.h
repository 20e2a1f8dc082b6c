#pragma once
// Which CUDA API functions the CUDA tool watches, decided from the names CUPTI gives its
// callback ids (cuptiGetCallbackName), so versioned and per-thread-stream variants
// (cudaLaunchKernel_v7000, cudaMemcpyAsync_ptsz_v7000, cuLaunchKernelEx_ptsz, ...) and
// functions added by later toolkits are caught without a list of ids.

#include <cstdint>
#include <string_view>

namespace cprof::gpu::cuda {

enum class ApiKind : uint8_t {
  none = 0,    // not watched
  launch = 1,  // one kernel per call
  copy = 2,    // one memory copy per call
  many = 3,    // several activity records share the call's correlation id (graphs, batches)
};

// Runtime (cuda*) and driver (cu*) names alike.
ApiKind classify_api(std::string_view name);

}  // namespace cprof::gpu::cuda
