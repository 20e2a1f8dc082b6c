// End to end: `causal-run --gpu` on a program that waits for the stand-in HSA runtime's
// kernels with spinning (active) signal waits (gpu_wait_app.cpp). The GPU records land in
// the causal run's results directory; the program's output and exit status are its own;
// the causal runtime sees every wait (its end-of-run message counts them) and the samples
// taken while the program spins inside a wait are not counted as CPU work of the line
// that waits (docs/causal.md "Waiting for the GPU").
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/gpu/gpu_causal_checks.h"
#include "tests/support/results_loader.h"

namespace {

using cprof::testing::expect_gpu_waits_not_counted_as_work;
using cprof::testing::fresh_directory;
using cprof::testing::read_causal_gpu_run;
using cprof::testing::run_command;

const std::string kApp = GPU_WAIT_APP;
const std::string kEnv = "CPROF_CAUSAL_DURATION_MS=100 ";
constexpr int kRounds = 150;
constexpr int kKernelUs = 3000;

int marked_line(const std::string& mark) {
  return cprof::testing::marked_line(GPU_WAIT_APP_SOURCE, mark);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(GpuCausalRun, RecordsKernelsAndKeepsTheProgramsOutputAndExitStatus) {
  const std::string dir = fresh_directory("gpu-causal-status");
  const std::string args = " 40 1000 3";
  std::string plain_err;
  const int plain = run_command(kApp + args + " > " + dir + ".plain", plain_err);
  ASSERT_EQ(plain, 3) << plain_err;
  std::string output;
  // The parentheses keep causal-run's own stderr out of the program's stdout file.
  const int status = run_command("(" + kEnv + CAUSAL_RUN + " --gpu -q -o " + dir + " --line gpu_wait_app.cpp:" +
                                     std::to_string(marked_line("// LINE_WORK")) + " -- " + kApp +
                                     args + " > " + dir + ".out)",
                                 output);
  EXPECT_EQ(status, 3) << output;
  std::string out = read_file(dir + ".out");
  // The program's stdout is as it was (a run this short ends before the first experiment:
  // causal-run says so on stderr, even with -q, never in the program's output).
  EXPECT_EQ(out, read_file(dir + ".plain")) << output;
  EXPECT_NE(out.find("gpu_wait_app: 40 rounds of 1000 us"), std::string::npos);
  const auto seen = read_causal_gpu_run(dir);
  EXPECT_EQ(seen.gpu_files, 1u) << output;
  EXPECT_EQ(seen.kernels, 40u) << output;
}

// Children forked by a program the HSA tool traces exit as the program's would: the
// tool's inherited exit handler leaves the parent's threads alone (joining them hung
// every child).
TEST(GpuCausalRun, ForkedChildrenOfATracedProgramEnd) {
  const std::string dir = fresh_directory("gpu-causal-fork");
  std::string output;
  const int status = run_command(kEnv + CAUSAL_RUN + " --gpu -o " + dir + " -- " + kApp +
                                     " 20 1000 0 5",
                                 output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("children: 5 ended, 0 hung"), std::string::npos) << output;
  EXPECT_EQ(read_causal_gpu_run(dir).kernels, 20u) << output;
}

TEST(GpuCausalRun, SignalWaitsCountAsBlockedNotAsWorkOfTheWaitingLine) {
  const std::string dir = fresh_directory("gpu-causal-waits");
  const int wait_line = marked_line("// LINE_WAIT");
  ASSERT_GT(wait_line, 0);
  std::string output;
  const int status = run_command(
      kEnv + CAUSAL_RUN + " --gpu -o " + dir + " --line gpu_wait_app.cpp:" +
          std::to_string(wait_line) + " --fixed-speedup 50 --seed 1 -- " + kApp + " " +
          std::to_string(kRounds) + " " + std::to_string(kKernelUs) + " 2>&1",
      output);
  ASSERT_EQ(status, 0) << output;
  const auto seen = read_causal_gpu_run(dir);
  EXPECT_EQ(seen.kernels, static_cast<size_t>(kRounds)) << output;
  expect_gpu_waits_not_counted_as_work(seen, kRounds, output);
}

}  // namespace
