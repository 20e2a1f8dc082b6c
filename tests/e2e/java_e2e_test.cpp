// End-to-end: sample-run and causal-report on a Java program (programs/JitWork.java). Its
// hot code is compiled by the JVM at run time into anonymous memory, named only by the
// perf map the JVM writes when asked; the JVM's own SIGSEGV handler (implicit null checks)
// must keep working under the profiler, and its output, thread names and exit status
// must be the program's.

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/program_output.h"
#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

const std::string kSampleRun = SAMPLE_RUN;
const std::string kReport = CAUSAL_REPORT;
const std::string kJava = JAVA_PROGRAM;  // "" when no JDK was found
const std::string kClasses = JAVA_CLASSES;

#define SKIP_WITHOUT_JAVA() \
  if (kJava.empty()) GTEST_SKIP() << "no JDK (java and javac) was found when the suite was configured"

struct JavaRun {
  int status = -1;
  std::string output;
  std::string dir;
  std::vector<LoadedProcess> processes;
};

JavaRun sample_java(const std::string& name, const std::string& jvm_options) {
  JavaRun r;
  r.dir = fresh_directory(name);
  r.status = run_command(kSampleRun + " -f 1000 -o " + r.dir + " -- " + kJava + " " + jvm_options +
                             " -cp " + kClasses + " JitWork 1000",
                         r.output);
  r.processes = load_results(r.dir);
  // The JVM leaves its map in /tmp, as runtimes do; the report must do with the copy.
  for (const auto& p : r.processes) std::filesystem::remove("/tmp/perf-" + std::to_string(p.process.pid) + ".map");
  return r;
}

// causal-report's text for `dir`, by thread.
std::string report_by_thread(const std::string& dir) {
  std::string text;
  EXPECT_EQ(run_command(kReport + " " + dir + " --by thread", text), 0) << text;
  return text;
}

TEST(JavaProgram, JitCodeIsNamedFromTheJvmsPerfMapAndItsSignalsStillWork) {
  SKIP_WITHOUT_JAVA();
  std::string plain;
  ASSERT_EQ(run_command(kJava + " -cp " + kClasses + " JitWork 1000", plain), 4) << plain;
  ASSERT_NE(checksum_line(plain).find("null check: -1"), std::string::npos) << plain;

  const auto r = sample_java("java-named", "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit");
  EXPECT_EQ(r.status, 4) << r.output;
  // The NullPointerException came through the JVM's SIGSEGV handler as it does unprofiled.
  EXPECT_EQ(checksum_line(r.output), checksum_line(plain)) << r.output;
  ASSERT_EQ(r.processes.size(), 1u) << r.output;
  // Each worker thread's time is in the compiled method, named from the copy of the JVM's
  // map kept with the results, and the threads carry the names Java gave them. (How much
  // of the JVM's command line fits beside them depends on the digits of the pids.)
  const std::string report = report_by_thread(r.dir);
  for (const std::string thread : {"alpha", "beta"}) {
    EXPECT_TRUE(
        std::regex_search(report, std::regex("\\n *[0-9.]+% .* [0-9]+ " + thread +
                                             " in java[^\\n]*\\[[0-9]+\\] +long JitWork\\.work")))
        << thread << "\n"
        << report;
  }
  EXPECT_EQ(report.find("outside every mapped file"), std::string::npos) << report;
}

// Without the JVM's map the same code is "[unknown]", and the report says how to get it.
TEST(JavaProgram, WithoutAPerfMapTheReportSaysHowToHaveOne) {
  SKIP_WITHOUT_JAVA();
  const auto r = sample_java("java-unnamed", "");
  EXPECT_EQ(r.status, 4) << r.output;
  const std::string report = report_by_thread(r.dir);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(report, m,
                                std::regex("note: java[^\\n]*\\[[0-9]+\\]: ([0-9]+)% of the samples")))
      << report;
  EXPECT_GT(std::stoi(m[1]), 50) << report;
  EXPECT_NE(report.find("java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"),
            std::string::npos)
      << report;
}

}  // namespace
}  // namespace cprof::testing
