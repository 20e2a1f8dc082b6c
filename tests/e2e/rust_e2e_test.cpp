// End-to-end: sample-run, causal-run and causal-report on a program rustc built
// (programs/rust_workers.rs): its legacy-mangled names read as Rust paths, its DWARF gives
// lines and breakpoint addresses, its threads are told apart, and its own panic machinery,
// output and exit status are untouched.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "tests/support/program_output.h"
#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

const std::string kSampleRun = SAMPLE_RUN;
const std::string kCausalRun = CAUSAL_RUN;
const std::string kReport = CAUSAL_REPORT;
const std::string kProgram = RUST_PROGRAM;
const std::string kSource = RUST_SOURCE;

#define SKIP_WITHOUT_RUSTC() \
  if (kProgram.empty()) GTEST_SKIP() << "rustc was not found when the suite was configured"

// FILE:LINE of `marker` in the Rust source, as --line and --progress take it.
std::string rust_line(const std::string& marker) {
  std::ifstream in(kSource);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.find(marker) != std::string::npos) return "rust_workers.rs:" + std::to_string(n);
  }
  ADD_FAILURE() << marker << " not found in " << kSource;
  return "";
}

TEST(RustProgram, SampledLikeAnyOtherWithItsBehaviourUnchanged) {
  SKIP_WITHOUT_RUSTC();
  // RUST_BACKTRACE: the panic prints a backtrace that Rust's own unwinder walks, beside
  // the runtime's libunwind.
  const std::string program = "RUST_BACKTRACE=1 " + kProgram + " threads 2000";
  std::string plain;
  ASSERT_EQ(run_command(program, plain), 3) << plain;
  ASSERT_NE(checksum_line(plain), "") << plain;

  const std::string dir = fresh_directory("rust-threads");
  std::string output;
  EXPECT_EQ(run_command("RUST_BACKTRACE=1 " + kSampleRun + " -f 1000 -o " + dir + " -- " +
                            kProgram + " threads 2000",
                        output),
            3)
      << output;
  EXPECT_EQ(checksum_line(output), checksum_line(plain)) << output;
  EXPECT_NE(output.find("panic caught: true"), std::string::npos) << output;
  EXPECT_NE(output.find("rust_workers::panic_on_purpose"), std::string::npos)
      << "Rust's own backtrace lost its frames under the profiler:\n" << output;

  const auto processes = load_results(dir);
  ASSERT_EQ(processes.size(), 1u) << output;
  const auto& p = processes[0];
  EXPECT_TRUE(p.summary.issues.empty());
  // Each worker's samples on its own thread, named as a Rust path (legacy mangling:
  // _ZN12rust_workers10alpha_work17h<hash>E).
  std::map<int64_t, std::string> worker_of;  // tid -> the worker function on its stacks
  for (const auto& s : p.samples) {
    for (const auto& f : s.functions) {
      if (f == "rust_workers::alpha_work" || f == "rust_workers::beta_work") {
        EXPECT_TRUE(worker_of.emplace(s.tid, f).first->second == f)
            << "thread " << s.tid << " runs both workers";
      }
    }
  }
  ASSERT_EQ(worker_of.size(), 2u) << output;
  // alpha: 2 units x 2000 rounds, beta half of that: 0.1 to 0.4 s of CPU by the machine.
  // Each worker's samples against its own thread's CPU time (one due per millisecond at
  // 1000 Hz), not a count fixed for one machine's speed.
  std::map<std::string, uint64_t> cpu_ms;  // worker function -> its thread's CPU time
  for (const auto& end : p.thread_ends) {
    if (const auto w = worker_of.find(end.tid); w != worker_of.end()) {
      cpu_ms[w->second] = end.cpu_time_ns / 1000000;
    }
  }
  const size_t alpha = p.total_samples("rust_workers::alpha_work");
  const size_t beta = p.total_samples("rust_workers::beta_work");
  EXPECT_GT(cpu_ms["rust_workers::alpha_work"], 50u);
  EXPECT_GT(alpha, cpu_ms["rust_workers::alpha_work"] / 2) << cpu_ms["rust_workers::alpha_work"];
  EXPECT_GT(beta, cpu_ms["rust_workers::beta_work"] / 2) << cpu_ms["rust_workers::beta_work"];
  EXPECT_GT(alpha, beta);
  // Stacks go through std's thread start, down to the closure that called the worker.
  EXPECT_GT(p.total_samples("rust_workers::named::{{closure}}"), alpha);
  std::map<int64_t, std::string> names;
  for (const auto& t : p.threads) names[t.tid] = t.name;
  for (const auto& [tid, worker] : worker_of) {
    EXPECT_EQ(names[tid], worker == "rust_workers::alpha_work" ? "alpha" : "beta") << tid;
  }
  EXPECT_EQ(p.thread_ends.size(), p.threads.size());

  // The report names them with their lines in the Rust source.
  std::string text;
  ASSERT_EQ(run_command(kReport + " " + dir + " --top 0", text), 0) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("rust_workers::alpha_work[^\\n]*rust_workers\\.rs:[0-9]+")))
      << text;
  EXPECT_EQ(text.find("_ZN12rust_workers"), std::string::npos) << text;
}

// Lines of Rust source as causal locations and as a hardware-breakpoint progress point:
// line A does two thirds of each round's work, so at 50% the round would be about a third
// shorter. The band is broad (a shared VM; see tests/causal/causal_run_e2e_test.cpp); what
// is tested is that rustc's line table leads to the code, the breakpoint and a prediction.
TEST(RustProgram, CausalLinesAndABreakpointProgressPoint) {
  SKIP_WITHOUT_RUSTC();
  const std::string a = rust_line("LINE_A");
  const std::string b = rust_line("LINE_B");
  const std::string dir = fresh_directory("rust-causal");
  std::string output;
  ASSERT_EQ(run_command("CPROF_CAUSAL_DURATION_MS=25 " + kCausalRun + " -o " + dir + " --line " + a +
                            " --progress " + b + " --fixed-speedup 50 --seed 3 -- " + kProgram +
                            " serial 6000",
                        output),
            0)
      << output;
  EXPECT_NE(output.find("checksum "), std::string::npos) << output;
  if (output.find("hardware breakpoints count nothing on this machine") != std::string::npos) {
    GTEST_SKIP() << "this machine's hardware breakpoints count nothing (said by causal-run)";
  }
  std::string json;
  ASSERT_EQ(run_command(kReport + " " + dir + " --format json", json), 0) << json;
  EXPECT_NE(json.find("\"source\": \"breakpoint\""), std::string::npos) << output;
  const auto s = predicted_speedup(json, a, "0.5");
  ASSERT_TRUE(s.has_value()) << output << json.substr(json.find("\"causal\""));
  EXPECT_GT(*s, 0.05);  // 2/3 * 50% = 33% on an idle machine
  EXPECT_LE(*s, 0.5);
}

}  // namespace
}  // namespace cprof::testing
