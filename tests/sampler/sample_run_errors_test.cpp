// Bad input gets one clear line naming what is wrong, and a non-zero exit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

const std::string kSampleRun = SAMPLE_RUN;
const std::string kPrograms = TEST_PROGRAMS;

struct Case {
  const char* name;
  std::string arguments;
  std::string expected;  // in the one line printed
};

class SampleRunRejects : public ::testing::TestWithParam<Case> {};

TEST_P(SampleRunRejects, WithOneLineNamingTheProblem) {
  const Case& c = GetParam();
  std::string out;
  const int status = run_command(kSampleRun + " " + c.arguments, out);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find(c.expected), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

std::string not_executable_file() {
  std::string path = fresh_directory("noexec") + "/script";
  std::ofstream(path) << "#!/bin/sh\necho hi\n";
  return path;
}

std::string file_in_the_way() {
  const std::string path = fresh_directory("blocked") + "/plainfile";
  std::ofstream(path) << "x";
  return path + "/results";
}

INSTANTIATE_TEST_SUITE_P(
    BadInput, SampleRunRejects,
    ::testing::Values(
        Case{"missing", "-o /tmp/unused -- /nonexistent/program", "/nonexistent/program"},
        Case{"not_in_path", "-o /tmp/unused -- no-such-program-xyz", "not found in PATH"},
        Case{"not_executable", "-o /tmp/unused -- " + not_executable_file(), "not executable"},
        Case{"static", "-o /tmp/unused -- " + kPrograms + "/static_program", "statically linked"},
        Case{"unwritable_dir", "-o " + file_in_the_way() + " -- " + kPrograms + "/exec_target",
             "cannot be created"},
        Case{"unknown_option", "--frobnicate -- " + kPrograms + "/exec_target", "frobnicate"},
        Case{"unknown_event", "-o /tmp/unused -e no-such-event -- " + kPrograms + "/exec_target",
             "no-such-event"},
        Case{"bad_frequency", "-f 0 -- " + kPrograms + "/exec_target", "frequency"},
        // In our words, not CLI11's ("Value abc not in range 1.000000 to 100000.000000").
        Case{"frequency_not_a_number", "-f abc -- " + kPrograms + "/exec_target",
             "sample-run: --frequency: 'abc' is not a number; give samples per second, 1 to "
             "100000 (see --help)"},
        Case{"misspelled_option", "--frequncy 100 -- " + kPrograms + "/exec_target",
             "sample-run: unknown option --frequncy (did you mean --frequency?) (see --help)"},
        Case{"misspelled_value", "--clock wal -- " + kPrograms + "/exec_target",
             "sample-run: --clock: 'wal' is not one of cpu, wall (did you mean wall?)"},
        Case{"bad_gpu_duty", "--gpu-duty 0 -- " + kPrograms + "/exec_target", "--gpu-duty"},
        Case{"gpu_duty_over_100", "--gpu-duty 150 -- " + kPrograms + "/exec_target", "--gpu-duty"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

// An executable file that is neither ELF nor a #! script: the kernel refuses to run it
// (ENOEXEC) in the child, and that line, too, is the tool's.
TEST(SampleRunRejects, FileWithoutShebangWithTheToolsPrefix) {
  const std::string script = fresh_directory("no-shebang") + "/loop.py";
  std::ofstream(script) << "print(1)\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  std::string out;
  EXPECT_EQ(run_command(
                kSampleRun + " -q -o " + fresh_directory("no-shebang-out") + " -- " + script, out),
            126);
  EXPECT_EQ(out.rfind("sample-run: cannot run '" + script + "': Exec format error", 0), 0u) << out;
  EXPECT_NE(out.find("nor a script with a #! line"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

TEST(SampleRunHelp, ListsTheOptions) {
  std::string out;
  EXPECT_EQ(run_command(kSampleRun + " --help", out), 0);
  for (const char* option : {"--frequency", "--output", "--backend", "--clock", "--unwind",
                             "--events", "--depth", "--gpu", "--gpu-duty"}) {
    EXPECT_NE(out.find(option), std::string::npos) << option;
  }
}

}  // namespace
}  // namespace cprof::testing
