#pragma once
// The child environment that `--gpu` asks for, one code path for every launcher
// (sample-run, causal-run): the GPU tools libraries next to the tool, each handed to its
// runtime the way that runtime loads tools.
//   HSA:  HSA_TOOLS_LIB (space-separated; appended to the caller's value), libcprof-hsa.so
//   CUDA: CUDA_INJECTION64_PATH (one library only), libcprof-cuda.so

#include <string>
#include <vector>

#include "sampler/launcher/launch.h"

namespace cprof::launch {

// Adds the settings for the tools libraries that were built (a build without the HSA
// headers or the CUDA toolkit has only one, or none). Returns "" or one line when no GPU
// tools library is there at all. `notes` gets one line per runtime that is left out,
// with the reason (e.g. CUDA_INJECTION64_PATH already names another tool).
// `duty_percent` below 100 (--gpu-duty) makes the hooks trace only that share of the
// run, in windows (CPROF_GPU_DUTY, gpu/common/trace_windows.h).
std::string add_gpu_environment(ChildEnvironment& env, std::vector<std::string>& notes,
                                double duty_percent = 100);

// The --gpu-duty option's help, one text for every launcher.
inline constexpr const char* kGpuDutyHelp =
    "trace GPU launches in windows covering only this percentage of the run (implies "
    "--gpu): for launch-bound programs, where tracing every launch costs too much; the "
    "report says what share it saw";

}  // namespace cprof::launch
