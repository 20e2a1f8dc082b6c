// sample-run and causal-run on a program that closes every descriptor it did not open and
// then opens files of its own (sampler/runtime/owned_fds.h): the program's files hold its
// data only, its numbers are the ones it would get unprofiled, and sampling goes on.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

const std::string kPrograms = TEST_PROGRAMS;

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CloserRun {
  int status = 0;
  std::string output;
  std::string files_dir;  // the program's own files
  std::vector<LoadedProcess> processes;
};

CloserRun run_closer(const std::string& launcher, const std::string& mode) {
  CloserRun run;
  const std::string results = fresh_directory("closer-results-" + mode);
  run.files_dir = fresh_directory("closer-files-" + mode);
  run.status = run_command(launcher + " -o " + results + " -- " + kPrograms + "/fd_closer " + mode +
                               " " + run.files_dir,
                           run.output);
  run.processes = load_results(results);
  return run;
}

void expect_program_undisturbed(const CloserRun& run) {
  EXPECT_EQ(run.status, 0) << run.output;
  // The lowest free number, as without a profiler: nothing of the runtime's sits at 3.
  EXPECT_NE(run.output.find("first-fd 3\n"), std::string::npos) << run.output;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(file_text(run.files_dir + "/file" + std::to_string(i)),
              "data " + std::to_string(i) + "\n")
        << "file" << i << " of the program holds something else: " << run.output;
  }
}

class ProgramClosingEveryDescriptor : public ::testing::TestWithParam<const char*> {};

TEST_P(ProgramClosingEveryDescriptor, KeepsItsFilesAndIsStillSampled) {
  const CloserRun run = run_closer(std::string(SAMPLE_RUN) + " -f 1000", GetParam());
  expect_program_undisturbed(run);
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  const auto& p = run.processes[0];
  EXPECT_TRUE(p.summary.issues.empty()) << run.output;
  // 400 ms of CPU at 1000 Hz after the closing: most of it sampled (a shared machine).
  EXPECT_GT(p.total_samples("burn_closer_cpu"), 150u) << run.output;
  EXPECT_FALSE(p.thread_ends.empty());
}

INSTANTIATE_TEST_SUITE_P(Modes, ProgramClosingEveryDescriptor,
                         ::testing::Values("loop", "closefrom", "close_range", "proc", "dup2"),
                         [](const auto& p) { return std::string(p.param); });

#ifdef CAUSAL_RUN
TEST(CausalRunDescriptors, ProgramClosingEveryDescriptorKeepsItsFilesAndIsStillSampled) {
  const CloserRun run = run_closer(std::string(CAUSAL_RUN) + " --end-to-end", "closefrom");
  expect_program_undisturbed(run);
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  EXPECT_TRUE(run.processes[0].summary.issues.empty()) << run.output;
  EXPECT_GT(run.processes[0].total_samples("burn_closer_cpu"), 100u) << run.output;
}
#endif

}  // namespace
}  // namespace cprof::testing
