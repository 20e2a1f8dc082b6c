// sample-run --gpu on a real CUDA program: kernels and copies recorded by the CUDA tool
// (libcprof-cuda through CUDA_INJECTION64_PATH) with names, counts, durations, sizes,
// directions and launch stacks that name the launching functions. Skips where there is no
// CUDA driver or device.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/gpu/cuda_tool_checks.h"
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
const std::string kProgram = tool_path(CUDA_PROGRAM, "../test-programs/cuda_launches");

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

}  // namespace
}  // namespace cprof::testing
