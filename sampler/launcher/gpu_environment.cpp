#include "sampler/launcher/gpu_environment.h"

#include <cstdlib>

#include <fmt/format.h>

#include "sampler/runtime/config.h"

namespace cprof::launch {
namespace {

std::string getenv_string(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

}  // namespace

std::string add_gpu_environment(ChildEnvironment& env, std::vector<std::string>& notes,
                                double duty_percent) {
  if (duty_percent < 100) env.set.emplace_back(sampler::env::kGpuDuty, fmt::format("{}", duty_percent));
  bool any = false;
  std::string hsa_tool;
  if (find_runtime_library("libcprof-hsa.so", hsa_tool).empty()) {
    any = true;
    // The HSA runtime loads every library HSA_TOOLS_LIB names: keep the caller's tools.
    const std::string tools = getenv_string("HSA_TOOLS_LIB");
    env.set.emplace_back("HSA_TOOLS_LIB", tools.empty() ? hsa_tool : tools + " " + hsa_tool);
  }
  std::string cuda_tool;
  if (find_runtime_library("libcprof-cuda.so", cuda_tool).empty()) {
    any = true;
    // The CUDA driver loads one injection library only: never replace the caller's.
    const std::string injected = getenv_string("CUDA_INJECTION64_PATH");
    if (injected.empty() || injected == cuda_tool) {
      env.set.emplace_back("CUDA_INJECTION64_PATH", cuda_tool);
    } else {
      notes.push_back("CUDA_INJECTION64_PATH already names " + injected +
                      "; CUDA activity is not recorded");
    }
  }
  if (!any) {
    return "--gpu: no GPU tools library (libcprof-hsa.so, libcprof-cuda.so) next to this tool; "
           "rebuild with the HSA headers or the CUDA toolkit";
  }
  return "";
}

}  // namespace cprof::launch
