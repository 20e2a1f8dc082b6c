// The CUDA tool end to end without a GPU: sample-run --gpu on cuda_standin_app, a program
// linked with the stand-in CUDA and CUPTI (tests/gpu/cupti_standin), so libcprof-cuda is
// loaded through CUDA_INJECTION64_PATH, subscribes, enables callbacks by name, joins
// activity records to launches and writes them as on a real GPU (the checks are the real
// test's, tests/gpu/cuda_tool_checks.h). Also: both callback domains, output and exit
// status, trace windows (--gpu-duty), a bad duty, and causal-run --gpu counting the
// program's synchronizations as blocked.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/gpu/cuda_tool_checks.h"
#include "tests/gpu/gpu_causal_checks.h"
#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

const std::string kSampleRun = SAMPLE_RUN;
const std::string kApp = CUDA_STANDIN_APP;

GpuFile run_and_read(const std::string& dir, const std::string& env, const std::string& options,
                     const std::string& args, std::string& output) {
  const int status =
      run_command(env + " " + kSampleRun + " -o " + dir + " " + options + " -- " + kApp + args,
                  output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output.find("cprof-cuda:"), std::string::npos) << output;
  const auto files = gpu_files_in(dir);
  EXPECT_EQ(files.size(), 1u) << output;
  return files.empty() ? GpuFile{} : read_gpu_file(files[0]);
}

TEST(CudaStandin, KernelsAndCopiesWithTheirLaunchStacks) {
  std::string output;
  const GpuFile f = run_and_read(fresh_directory("cuda-standin"), "", "--gpu", "", output);
  EXPECT_NE(output.find("cuda_standin_app: ok"), std::string::npos) << output;
  expect_cuda_launches_recorded(f);
  EXPECT_TRUE(f.windows.empty());  // no --gpu-duty: everything traced
  // sample-run's summary says what the GPU tool recorded.
  EXPECT_NE(output.find("sample-run: GPU: 8 kernels and 2 copies recorded\n"), std::string::npos)
      << output;
}

// A graph launch: one call, several kernel records with its correlation id.
TEST(CudaStandin, GraphKernelsBelongToTheGraphLaunch) {
  std::string output;
  const GpuFile f = run_and_read(fresh_directory("cuda-standin-graph"), "", "--gpu", " --graph", output);
  EXPECT_NE(output.find("cuda_standin_app: graph ok"), std::string::npos) << output;
  expect_graph_kernels_recorded(f);
}

struct ThreadLaunches {
  int64_t tid = 0;
  uint64_t launches = 0;
};

// "thread i tid T launches L" lines of a --threads run, by i.
std::map<int, ThreadLaunches> threads_printed(const std::string& output) {
  std::map<int, ThreadLaunches> out;
  const std::regex line("thread ([0-9]+) tid ([0-9]+) launches ([0-9]+)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line);
       it != std::sregex_iterator(); ++it) {
    out[std::stoi((*it)[1])] = {std::stoll((*it)[2]), std::stoull((*it)[3])};
  }
  return out;
}

// Four threads launching at once, traced in full and in windows: every kernel_i record is
// thread i's (its tid, launch_on_thread on its stack); in full, none is lost or doubled.
TEST(CudaStandin, LaunchesFromSeveralThreadsKeepTheirThreadAndStack) {
  for (const std::string options : {"--gpu", "--gpu-duty 50"}) {
    SCOPED_TRACE(options);
    std::string output;
    const GpuFile f = run_and_read(fresh_directory("cuda-standin-threads"), "CPROF_GPU_PERIOD_MS=20",
                                   options, " --threads 4 300", output);
    const auto threads = threads_printed(output);
    ASSERT_EQ(threads.size(), 4u) << output;
    std::map<int, uint64_t> recorded, with_stack;
    std::map<std::vector<uint64_t>, bool> launched_here;  // by stack: symbolized once
    const std::regex name("kernel_([0-9])\\(\\)");
    for (const auto& k : f.kernels) {
      std::smatch m;
      ASSERT_TRUE(std::regex_match(k.name, m, name)) << k.name;
      const int i = std::stoi(m[1]);
      ++recorded[i];
      if (k.tid == 0) continue;  // a launch that raced a window's opening: no callback
      EXPECT_EQ(k.tid, threads.at(i).tid) << k.name;
      auto [at, fresh] = launched_here.try_emplace(k.frames, false);
      if (fresh) at->second = has_function(stack_functions(f, k.frames), "launch_on_thread");
      if (at->second) ++with_stack[i];
    }
    for (const auto& [i, t] : threads) {
      if (options == "--gpu") {
        EXPECT_EQ(recorded[i], t.launches) << "thread " << i;
        EXPECT_EQ(with_stack[i], t.launches) << "thread " << i;
      } else {
        EXPECT_GT(recorded[i], 0u) << "thread " << i;
        EXPECT_LT(recorded[i], t.launches) << "thread " << i;
        EXPECT_GE(with_stack[i] * 100, recorded[i] * 95) << "thread " << i;
      }
    }
  }
}

// Runtime and driver callbacks nest (cudaLaunchKernel around cuLaunchKernel, each with its
// own correlation id): each kernel is still recorded once, with the outer call's stack.
TEST(CudaStandin, BothCallbackDomainsGiveTheSameRecords) {
  std::string output;
  const GpuFile f =
      run_and_read(fresh_directory("cuda-standin-both"), "CPROF_CUDA_API=both", "--gpu", "", output);
  expect_cuda_launches_recorded(f);
}

TEST(CudaStandin, ProgramOutputAndExitStatusAreItsOwn) {
  std::string plain, traced;
  const int plain_status = run_command(kApp + " --exit 3", plain);
  const int traced_status = run_command(
      kSampleRun + " -q -o " + fresh_directory("cuda-standin-quiet") + " --gpu -- " + kApp + " --exit 3",
      traced);
  EXPECT_EQ(plain_status, 3);
  EXPECT_EQ(traced_status, 3);
  EXPECT_EQ(plain, traced);
}

// --gpu-duty 25 with 20 ms periods on 400 ms of launches: the file has the windows; only
// launches inside them were recorded, each with its launch stack (callbacks are switched
// on before the kernel activity and off after it, and a call whose exit fell between
// windows does not swallow the next launch; without that, a third of the stacks were lost
// in one run of five).
TEST(CudaStandin, TraceWindowsRecordLaunchesInsideThemWithTheirStacks) {
  std::string output;
  const GpuFile f = run_and_read(fresh_directory("cuda-standin-duty"), "CPROF_GPU_PERIOD_MS=20",
                                 "--gpu-duty 25", " --loop 400", output);
  const uint64_t launched = launches_printed(output);
  ASSERT_GT(launched, 0u) << output;
  expect_loop_traced_in_windows(f, launched, 0.25, 20'000'000);
  const std::string summary = "kernels and 0 copies recorded, traced in " +
                              std::to_string(f.windows.size()) + " windows (25% of each period";
  EXPECT_NE(output.find(summary), std::string::npos) << output;
}

// causal-report on a windowed run says what share was traced, and its whole-run estimate
// (the windows' calls times the scale it prints) comes close to the launches made.
TEST(CudaStandin, TheReportSaysWhatTheWindowsCoveredAndEstimatesTheWholeRun) {
  const std::string dir = fresh_directory("cuda-standin-duty-report");
  std::string output;
  run_and_read(dir, "CPROF_GPU_PERIOD_MS=20", "--gpu-duty 25", " --loop 400", output);
  const uint64_t launched = launches_printed(output);
  ASSERT_GT(launched, 0u) << output;
  std::string text, json;
  ASSERT_EQ(run_command(std::string(CAUSAL_REPORT) + " " + dir, text), 0) << text;
  EXPECT_NE(text.find("GPU activity traced in windows: 25% of each 20 ms"), std::string::npos)
      << text;
  ASSERT_EQ(run_command(std::string(CAUSAL_REPORT) + " --format json " + dir, json), 0);
  std::smatch scale, calls;
  ASSERT_TRUE(std::regex_search(json, scale, std::regex("\"scale\": ([0-9.]+)"))) << json;
  ASSERT_TRUE(std::regex_search(json, calls, std::regex("\"calls\": ([0-9]+)"))) << json;
  const double estimate = std::stod(scale[1]) * std::stod(calls[1]);
  EXPECT_NEAR(estimate, static_cast<double>(launched), 0.2 * static_cast<double>(launched))
      << calls[1] << " calls x " << scale[1];
}

// A launch-bound run traced in full is told, in the results, that --gpu-duty exists; a
// run with a few launches is not, however fast they came (ten in half a millisecond made
// 20,000 per second, and once flagged a CI run). The launch-bound run launches 2 µs
// kernels: with 20 µs ones, at most 50,000 a second, a busy CI machine once brought the
// rate below the hint's 20,000.
TEST(CudaStandin, ALaunchBoundRunIsPointedAtGpuDuty) {
  const auto hint = [](const GpuFile& f) {
    return std::any_of(f.messages.begin(), f.messages.end(), [](const auto& m) {
      return m.text.find("per second were each traced") != std::string::npos &&
             m.text.find("--gpu-duty 10") != std::string::npos;
    });
  };
  std::string output;
  EXPECT_TRUE(hint(run_and_read(fresh_directory("cuda-standin-hint"), "", "--gpu",
                                " --loop 300 2", output)))
      << output;
  EXPECT_FALSE(hint(run_and_read(fresh_directory("cuda-standin-nohint"), "", "--gpu", "", output)))
      << output;
  EXPECT_FALSE(hint(run_and_read(fresh_directory("cuda-standin-hint-duty"), "", "--gpu-duty 50",
                                 " --loop 300 2", output)))
      << output;
}

// Children forked by a traced program exit as the program's would: the tool's exit
// handler, inherited, leaves the parent's threads and file alone (joining them hung every
// child). The parent's records are whole.
TEST(CudaStandin, ForkedChildrenOfATracedProgramEnd) {
  std::string output;
  const GpuFile f = run_and_read(fresh_directory("cuda-standin-fork"), "", "--gpu", " --fork 5",
                                 output);
  EXPECT_NE(output.find("children: 5 ended, 0 hung"), std::string::npos) << output;
  expect_cuda_launches_recorded(f);
}

TEST(CudaStandin, ABadDutyIsOneLineAndThenNothingIsRecorded) {
  const std::string dir = fresh_directory("cuda-standin-bad-duty");
  std::string output;
  const int status =
      run_command("CPROF_GPU_DUTY=abc " + kSampleRun + " -o " + dir + " --gpu -- " + kApp, output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("cuda_standin_app: ok"), std::string::npos) << output;
  EXPECT_NE(output.find("cprof-cuda: CPROF_GPU_DUTY=abc: expected a percentage above 0 and at "
                        "most 100; GPU activity is not recorded"),
            std::string::npos)
      << output;
  EXPECT_TRUE(gpu_files_in(dir).empty());
}

// causal-run --gpu: the tool brackets cudaDeviceSynchronize (through CUPTI's callbacks on
// the sync functions) with the causal runtime's GPU wait, so the spinning inside it is not
// CPU work of the line that synchronizes.
TEST(CudaStandin, CausalRunCountsSynchronizesAsBlocked) {
  constexpr int kRounds = 150;
  const std::string dir = fresh_directory("cuda-standin-causal");
  const int sync_line = marked_line(CUDA_STANDIN_APP_SOURCE, "// LINE_SYNC");
  ASSERT_GT(sync_line, 0);
  std::string output;
  const int status = run_command(
      std::string("CPROF_CAUSAL_DURATION_MS=100 ") + CAUSAL_RUN + " --gpu -o " + dir +
          " --line cuda_standin_app.cpp:" + std::to_string(sync_line) +
          " --fixed-speedup 50 --seed 1 -- " + kApp + " --sync " + std::to_string(kRounds) +
          " 3000 2>&1",
      output);
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("cuda_standin_app: 150 rounds of 3000 us"), std::string::npos) << output;
  const auto run = read_causal_gpu_run(dir);
  EXPECT_EQ(run.gpu_files, 1u) << output;
  EXPECT_EQ(run.kernels, static_cast<size_t>(kRounds)) << output;
  expect_gpu_waits_not_counted_as_work(run, kRounds, output);
}

}  // namespace
}  // namespace cprof::testing
