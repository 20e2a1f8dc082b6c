#pragma once
// Which CUDA API functions the CUDA tool watches, decided from the names CUPTI gives its
// callback ids (cuptiGetCallbackName), so versioned and per-thread-stream variants
// (cudaLaunchKernel_v7000, cudaMemcpyAsync_ptsz_v7000, cuLaunchKernelEx_ptsz, ...) and
// functions added by later toolkits are caught without a list of ids.

#include <cstdint>
#include <optional>
#include <string_view>

namespace cprof::gpu::cuda {

enum class ApiKind : uint8_t {
  none = 0,    // not watched
  launch = 1,  // one kernel per call
  copy = 2,    // one memory copy per call
  many = 3,    // several activity records share the call's correlation id (graphs, batches)
  host_sync = 4,  // not a launch: the host waits for the GPU (sync_callbacks.h)
};

// Runtime (cuda*) and driver (cu*) names alike.
ApiKind classify_api(std::string_view name);

// Which callback domains to watch (CPROF_CUDA_API): "driver" (the default: the runtime
// calls the driver, so driver callbacks see runtime launches too, one callback per launch
// instead of two), "runtime", "both", or "none" (activity only: no launch stacks, threads
// or submission times). Anything else: nullopt.
struct ApiDomains {
  bool runtime = false;
  bool driver = true;
};
std::optional<ApiDomains> parse_api_domains(std::string_view value);

}  // namespace cprof::gpu::cuda
