#pragma once
// What the CUDA tool's end-to-end tests check in a results directory, shared by the test
// on a real GPU (tests/gpu/cuda/cuda_e2e_test.cpp, program cuda_launches) and the one on
// the stand-in CUDA and CUPTI (cuda_standin_e2e_test.cpp, cuda_standin_app): the two
// programs launch the same kernels from the same functions.

#include <filesystem>
#include <string>
#include <vector>

#include "format/reader.h"
#include "format/records.h"

namespace cprof::testing {

struct GpuFile {
  format::ProcessRecord process;
  std::vector<format::ModuleRecord> modules;
  std::vector<format::KernelRecord> kernels;
  std::vector<format::CopyRecord> copies;
  std::vector<format::GpuDeviceRecord> devices;
  std::vector<format::GpuTraceWindowRecord> windows;
  std::vector<format::MessageRecord> messages;
  format::ReadSummary summary;
};

GpuFile read_gpu_file(const std::filesystem::path& path);

// The `.gpu` results files in `dir`.
std::vector<std::filesystem::path> gpu_files_in(const std::string& dir);

// Every function on a launch stack (inline chains expanded), innermost first; "?" for a
// frame that is not symbolized.
std::vector<std::string> stack_functions(const GpuFile& f, const std::vector<uint64_t>& frames);
bool has_function(const std::vector<std::string>& functions, const std::string& name);
std::string joined(const std::vector<std::string>& functions);

// The run of cuda_launches (or its stand-in) recorded in `f`: a named GPU, 5 scale_kernel
// launched from launch_scale and 3 offset_kernel from launch_offset (each timed, 2^18
// work-items in blocks of 256, launched before it ran, from a thread, with `main` on the
// stack), a 1 MiB copy in from copy_in and a 512 KiB copy out from copy_out.
void expect_cuda_launches_recorded(const GpuFile& f);

// A `--graph` run: graph_a(), graph_b() and graph_c() twice each (two launches of one
// graph), every one timed and with launch_graph on its stack (the graph launch's), not
// build_graph (where they were captured).
void expect_graph_kernels_recorded(const GpuFile& f);

// The N of "...: N launches" in a `--loop` run's output (0: not there).
uint64_t launches_printed(const std::string& output);

// A `--loop` run of `launched` loop_kernel launches under --gpu-duty (`duty` of every
// `period_ns`): at least 5 windows with that duty and period, some kernels but under 60%
// of the launches, all loop_kernel(), and at least 95% of them with launch_loop on their
// stack and submitted inside a window (a launch racing the switch at a window's start
// may have a record but no callback).
void expect_loop_traced_in_windows(const GpuFile& f, uint64_t launched, double duty,
                                   uint64_t period_ns);

}  // namespace cprof::testing
