// End to end: `causal-run --gpu` on a program that waits for the stand-in HSA runtime's
// kernels with spinning (active) signal waits (gpu_wait_app.cpp). The GPU records land in
// the causal run's results directory; the program's output and exit status are its own;
// the causal runtime sees every wait (its end-of-run message counts them) and the samples
// taken while the program spins inside a wait are not counted as CPU work of the line
// that waits (docs/causal.md "Waiting for the GPU").
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <variant>

#include "format/reader.h"
#include "tests/support/results_loader.h"

namespace {

using cprof::testing::fresh_directory;
using cprof::testing::run_command;

const std::string kApp = GPU_WAIT_APP;
const std::string kEnv = "CPROF_CAUSAL_DURATION_MS=100 ";
constexpr int kRounds = 150;
constexpr int kKernelUs = 3000;

int marked_line(const std::string& mark) {
  std::ifstream in(GPU_WAIT_APP_SOURCE);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.find(mark) != std::string::npos) return n;
  }
  return 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Seen {
  size_t kernels = 0;          // kernel records (the .gpu.cprof file)
  size_t gpu_files = 0;
  size_t experiments = 0;
  uint64_t selected_samples = 0;
  std::string messages;
};

Seen read_dir(const std::string& dir) {
  Seen s;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".cprof")) continue;
    if (name.find(".gpu.") != std::string::npos) ++s.gpu_files;
    cprof::format::read_results_file(entry.path(), [&](cprof::format::Record&& r) {
      if (std::holds_alternative<cprof::format::KernelRecord>(r)) ++s.kernels;
      if (auto* e = std::get_if<cprof::format::ExperimentRecord>(&r)) {
        ++s.experiments;
        s.selected_samples += e->selected_samples;
      }
      if (auto* m = std::get_if<cprof::format::MessageRecord>(&r)) s.messages += m->text + "\n";
    });
  }
  return s;
}

uint64_t number_after(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern + "([0-9]+)"))) return 0;
  return std::stoull(m[1]);
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
  const Seen seen = read_dir(dir);
  EXPECT_EQ(seen.gpu_files, 1u) << output;
  EXPECT_EQ(seen.kernels, 40u) << output;
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
  const Seen seen = read_dir(dir);
  EXPECT_EQ(seen.kernels, static_cast<size_t>(kRounds)) << output;
  // Every wait of the main thread was seen (the tool's wrapper in the API table).
  const uint64_t waits = number_after(seen.messages, "GPU waits seen: ");
  EXPECT_GE(waits, static_cast<uint64_t>(kRounds)) << seen.messages;
  // The program spins about kRounds * 3 ms inside the waits: its CPU-time samples there
  // are counted apart, not as samples of the selected line (whose every frame is under
  // LINE_WAIT).
  const uint64_t inside = number_after(seen.messages, "blocked; ");
  EXPECT_GE(inside, 50u) << seen.messages;
  ASSERT_GE(seen.experiments, 1u) << output << seen.messages;
  EXPECT_LE(seen.selected_samples * 10, inside) << seen.messages;
  std::printf("%s%zu experiments, %llu selected samples\n", seen.messages.c_str(),
              seen.experiments, static_cast<unsigned long long>(seen.selected_samples));
}

}  // namespace
