// sample-run --gpu on a real CUDA program: kernels and copies recorded by the CUDA tool
// (libcprof-cuda through CUDA_INJECTION64_PATH) with names, counts, durations, sizes,
// directions and launch stacks that name the launching functions. Skips where there is no
// CUDA driver or device.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/gpu/cuda_tool_checks.h"
#include "tests/gpu/gpu_causal_checks.h"
#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

// The build's paths, or, when the build was copied elsewhere to run on a GPU machine, the
// same layout next to this test: bin/sample-run, test-programs/cuda_launches.
std::string tool_path(const std::string& built, const std::string& relative) {
  if (std::filesystem::exists(built)) return built;
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / relative)
      .lexically_normal()
      .string();
}

const std::string kSampleRun = tool_path(SAMPLE_RUN, "sample-run");
const std::string kCausalRun = tool_path(CAUSAL_RUN, "causal-run");
const std::string kProgram = tool_path(CUDA_PROGRAM, "../test-programs/cuda_launches");
// The source (its marked lines), in the checkout the build folder sits in.
const std::string kSource = tool_path(CUDA_PROGRAM_SOURCE, "../../tests/gpu/cuda/cuda_launches.cu");

// "" when a CUDA device can be used here, else why not.
std::string why_no_cuda_device() {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver == nullptr) return "no CUDA driver (libcuda.so.1 cannot be loaded)";
  dlclose(driver);
  std::string output;
  const int status = run_command(kProgram + " --probe", output);
  if (status != 0) return "no CUDA device (cudaGetDeviceCount fails or finds none): " + output;
  return "";
}

TEST(CudaTool, KernelsAndCopiesWithTheirLaunchStacks) {
  if (const std::string why = why_no_cuda_device(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = fresh_directory("cuda-e2e");
  std::string output;
  const int status = run_command(kSampleRun + " -o " + dir + " --gpu -- " + kProgram, output);
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("cuda_launches: ok"), std::string::npos) << output;
  EXPECT_EQ(output.find("cprof-cuda:"), std::string::npos) << output;

  const auto gpu_files = gpu_files_in(dir);
  ASSERT_EQ(gpu_files.size(), 1u) << output;
  expect_cuda_launches_recorded(read_gpu_file(gpu_files[0]));
}

TEST(CudaTool, ProgramOutputAndExitStatusAreItsOwn) {
  if (const std::string why = why_no_cuda_device(); !why.empty()) GTEST_SKIP() << why;
  std::string plain, traced;
  const int plain_status = run_command(kProgram, plain);
  const std::string dir = fresh_directory("cuda-e2e-quiet");
  const int traced_status =
      run_command(kSampleRun + " -q -o " + dir + " --gpu -- " + kProgram, traced);
  EXPECT_EQ(plain_status, traced_status);
  EXPECT_EQ(plain, traced);
}

// Kernels of a graph launch (cudaGraphLaunch, one call) under the call that launched it.
TEST(CudaTool, GraphKernelsBelongToTheGraphLaunch) {
  if (const std::string why = why_no_cuda_device(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = fresh_directory("cuda-e2e-graph");
  std::string output;
  const int status =
      run_command(kSampleRun + " -o " + dir + " --gpu -- " + kProgram + " --graph", output);
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("cuda_launches: graph ok"), std::string::npos) << output;
  const auto files = gpu_files_in(dir);
  ASSERT_EQ(files.size(), 1u) << output;
  expect_graph_kernels_recorded(read_gpu_file(files[0]));
}

// --gpu-duty on real CUPTI: activity kinds and callbacks switched on and off while the
// program launches (tests/gpu/cuda_standin_e2e_test.cpp has the same on the stand-in).
TEST(CudaTool, TraceWindowsRecordLaunchesInsideThemWithTheirStacks) {
  if (const std::string why = why_no_cuda_device(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = fresh_directory("cuda-e2e-duty");
  std::string output;
  const int status = run_command("CPROF_GPU_PERIOD_MS=20 " + kSampleRun + " -o " + dir +
                                     " --gpu-duty 25 -- " + kProgram + " --loop 600",
                                 output);
  ASSERT_EQ(status, 0) << output;
  EXPECT_EQ(output.find("cprof-cuda:"), std::string::npos) << output;
  const uint64_t launched = launches_printed(output);
  ASSERT_GT(launched, 0u) << output;
  const auto files = gpu_files_in(dir);
  ASSERT_EQ(files.size(), 1u) << output;
  expect_loop_traced_in_windows(read_gpu_file(files[0]), launched, 0.25, 20'000'000);
}

// causal-run --gpu: cudaDeviceSynchronize spins by default (fewer contexts than cores);
// the CUPTI callbacks on the sync functions make that time blocked, not work of the line.
TEST(CudaTool, CausalRunCountsSynchronizesAsBlocked) {
  if (const std::string why = why_no_cuda_device(); !why.empty()) GTEST_SKIP() << why;
  constexpr int kRounds = 150;
  const int sync_line = marked_line(kSource, "// LINE_SYNC");
  ASSERT_GT(sync_line, 0);
  const std::string dir = fresh_directory("cuda-e2e-causal");
  std::string output;
  const int status = run_command(
      "CPROF_CAUSAL_DURATION_MS=100 " + kCausalRun + " --gpu -o " + dir +
          " --line cuda_launches.cu:" + std::to_string(sync_line) +
          " --fixed-speedup 50 --seed 1 -- " + kProgram + " --sync " + std::to_string(kRounds) +
          " 3000 2>&1",
      output);
  ASSERT_EQ(status, 0) << output;
  const auto run = read_causal_gpu_run(dir);
  EXPECT_EQ(run.kernels, static_cast<size_t>(kRounds)) << output;
  expect_gpu_waits_not_counted_as_work(run, kRounds, output);
}

}  // namespace
}  // namespace cprof::testing
