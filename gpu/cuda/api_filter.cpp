#include "gpu/cuda/api_filter.h"

namespace cprof::gpu::cuda {
namespace {

bool starts_with_either(std::string_view name, std::string_view runtime, std::string_view driver) {
  return name.starts_with(runtime) || name.starts_with(driver);
}

}  // namespace

ApiKind classify_api(std::string_view name) {
  // Host functions run no kernel; peer copies come as MEMCPY2 records, which the tool does
  // not read: watching them would only cost a stack each.
  if (name.find("HostFunc") != std::string_view::npos ||
      name.find("Peer") != std::string_view::npos) {
    return ApiKind::none;
  }
  if (starts_with_either(name, "cudaGraphLaunch", "cuGraphLaunch")) return ApiKind::many;
  if (starts_with_either(name, "cudaLaunch", "cuLaunch")) return ApiKind::launch;
  if (starts_with_either(name, "cudaMemcpy", "cuMemcpy")) {
    return name.find("Batch") != std::string_view::npos ? ApiKind::many : ApiKind::copy;
  }
  return ApiKind::none;
}

std::optional<ApiDomains> parse_api_domains(std::string_view value) {
  if (value.empty() || value == "driver") return ApiDomains{false, true};
  if (value == "runtime") return ApiDomains{true, false};
  if (value == "both") return ApiDomains{true, true};
  if (value == "none") return ApiDomains{false, false};
  return std::nullopt;
}

}  // namespace cprof::gpu::cuda
