// A guest never harms its host: programs whose behaviour changed under the launchers
// (issue "Hardening"), each run plain and profiled, with what must stay the same.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <regex>
#include <string>

#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

const std::string kPrograms = TEST_PROGRAMS;
const std::string kHostHarm = kPrograms + "/host_harm";

struct LaunchedRun {
  int status = 0;
  std::string output;
  std::vector<LoadedProcess> processes;
};

LaunchedRun launch(const std::string& launcher, const std::string& name, const std::string& args,
                   const std::string& prefix = "") {
  LaunchedRun run;
  const std::string dir = fresh_directory(name);
  run.status =
      run_command(prefix + launcher + " -o " + dir + " -- " + kHostHarm + " " + args, run.output);
  run.processes = load_results(dir);
  return run;
}

std::vector<std::string> launchers() {
  std::vector<std::string> all{std::string(SAMPLE_RUN) + " -f 1000"};
#ifdef CAUSAL_RUN
  all.push_back(std::string(CAUSAL_RUN) + " --end-to-end");
#endif
  return all;
}

// The program's handler on the sampling signal's number ran 500 times under sample-run
// and 1,003 under causal-run instead of the 3 it sent itself: the samples went to it.
TEST(HostHarm, ARealTimeSignalOfTheProgramStaysItsOwn) {
  for (const auto& launcher : launchers()) {
    SCOPED_TRACE(launcher);
    const LaunchedRun run = launch(launcher, "rt-handlers", "rt-handlers");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("SIGRTMAX-2 ran 3, handler kept"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("other real-time handlers ran 0"), std::string::npos) << run.output;
    ASSERT_EQ(run.processes.size(), 1u) << run.output;
    // ~400 ms of CPU: sampling went on, whichever signal the runtime took.
    EXPECT_GT(run.processes[0].samples.size(), 150u) << run.output;
  }
}

// The program's SIGALRM handler leaves by siglongjmp. It ran inside the sampling handler
// (an empty sa_mask), which then never finished, and every later sample was dropped.
TEST(HostHarm, SamplingGoesOnAfterTheProgramsHandlerLongjmps) {
  const LaunchedRun run = launch(std::string(SAMPLE_RUN) + " -f 1000", "alarm-jump", "alarm-jump");
  ASSERT_EQ(run.status, 0) << run.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.output, m, std::regex("jumped ([0-9]+) times")));
  EXPECT_GT(std::stoi(m[1].str()), 20) << run.output;  // the handler did run and jump
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  // 400 ms of CPU at 1000 Hz: most of the 400 samples, none dropped.
  EXPECT_GT(run.processes[0].total_samples("spin_through_alarms"), 200u) << run.output;
  uint64_t dropped = 0;
  for (const auto& t : run.processes[0].thread_ends) dropped += t.dropped_samples;
  EXPECT_LT(dropped, 10u) << run.output;
}

// Under a small file size limit the runtime's writes raised SIGXFSZ in the program, which
// died (status 153) with its output lost; it must end as it does plain, and the summary
// must say that the limit cut the results.
TEST(HostHarm, AFileSizeLimitCutsTheResultsNotTheProgram) {
  std::string plain;
  ASSERT_EQ(run_command("prlimit --fsize=40960 " + kHostHarm + " small-writer", plain), 0);
  const LaunchedRun run = launch(std::string(SAMPLE_RUN) + " -f 4000", "small-writer",
                                 "small-writer", "prlimit --fsize=40960 ");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("a line of output\ndone\n"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("file size limit (RLIMIT_FSIZE"), std::string::npos) << run.output;
  // Said once, in those words: not also as a file that lost its end.
  EXPECT_EQ(run.output.find("without their end record"), std::string::npos) << run.output;
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  EXPECT_GT(run.processes[0].samples.size(), 10u) << run.output;  // what fitted is kept
}

// Under a small limit with no room above it (ulimit -n 16 sets soft and hard), the runtime
// kept its results file, one perf_event descriptor per thread and two /proc files, each a
// number the program could not open: it now keeps the results file only.
TEST(HostHarm, UnderATightDescriptorLimitTheRuntimeKeepsOneDescriptor) {
  std::string plain;
  ASSERT_EQ(run_command("prlimit --nofile=16:16 " + kHostHarm + " open-files", plain), 0);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(plain, m, std::regex("opened ([0-9]+)"))) << plain;
  const int unprofiled = std::stoi(m[1].str());
  const LaunchedRun run = launch(std::string(SAMPLE_RUN) + " -f 1000", "open-files-tight",
                                 "open-files", "prlimit --nofile=16:16 ");
  EXPECT_EQ(run.status, 0) << run.output;
  ASSERT_TRUE(std::regex_search(run.output, m, std::regex("opened ([0-9]+)"))) << run.output;
  EXPECT_EQ(std::stoi(m[1].str()), unprofiled - 1) << "plain: " << plain << run.output;
  EXPECT_NE(run.output.find("the runtime keeps one descriptor, its results file"),
            std::string::npos)
      << run.output;
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  EXPECT_TRUE(run.processes[0].summary.ended) << run.output;
}

// The runtime's descriptors sat below the soft RLIMIT_NOFILE, taking numbers the program
// could have opened; where the hard limit leaves room they now sit above it.
TEST(HostHarm, TheProgramOpensAsManyFilesAsItDoesPlain) {
  std::string plain;
  ASSERT_EQ(run_command("prlimit --nofile=40:4096 " + kHostHarm + " open-files", plain), 0);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(plain, m, std::regex("opened ([0-9]+)"))) << plain;
  const std::string expected = m[0].str();
  for (const auto& launcher : launchers()) {
    SCOPED_TRACE(launcher);
    const LaunchedRun run =
        launch(launcher, "open-files", "open-files", "prlimit --nofile=40:4096 ");
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find(expected + "\n"), std::string::npos)
        << "plain: " << plain << "profiled: " << run.output;
    EXPECT_EQ(run.processes.size(), 1u) << run.output;
  }
}

// A full disk showed only as a torn tail, and a 4 s run as 358 ms, with no word of the
// disk. The program must run on, and the summary must name the full file system.
TEST(HostHarm, AFullDiskIsNamed) {
  const std::string dir = fresh_directory("full-disk");
  std::string out;
  if (run_command("mount -t tmpfs -o size=32k tmpfs " + dir, out) != 0) {
    GTEST_SKIP() << "cannot mount a small tmpfs here (not root, or no CAP_SYS_ADMIN): " << out;
  }
  std::string output;
  const int status = run_command(
      std::string(SAMPLE_RUN) + " -f 4000 -o " + dir + " -- " + kHostHarm + " small-writer",
      output);
  std::string unmount;
  run_command("umount " + dir, unmount);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("a line of output\ndone\n"), std::string::npos) << output;
  EXPECT_NE(output.find("is full ("), std::string::npos) << output;
  EXPECT_NE(output.find("No space left on device"), std::string::npos) << output;
}

// The summary said the results were "written to" a directory removed during the run.
TEST(HostHarm, AResultsDirectoryRemovedDuringTheRunIsSaid) {
  const std::string dir = fresh_directory("removed-dir");
  std::string output;
  const int status = run_command(std::string(SAMPLE_RUN) + " -o " + dir + " -- sh -c 'rm -rf " +
                                     dir + " && " + kHostHarm + " small-writer'",
                                 output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("done\n"), std::string::npos) << output;
  EXPECT_NE(output.find("was removed during the run"), std::string::npos) << output;
  EXPECT_EQ(output.find("written to " + dir), std::string::npos) << output;
}

// A set-user-ID program of another user runs in secure mode, where the loader ignores
// LD_PRELOAD: the generic "no results were written (was the program started?)" is now a
// refusal that says why.
TEST(HostHarm, ASetuidProgramIsRefusedWithTheReason) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a set-user-ID copy of another user";
  const std::string dir = fresh_directory("setuid");
  const std::string copy = dir + "/host_harm_setuid";
  std::string out;
  ASSERT_EQ(run_command("cp " + kHostHarm + " " + copy + " && chown nobody " + copy +
                            " && chmod 4755 " + copy,
                        out),
            0)
      << out;
  std::string output;
  EXPECT_NE(
      run_command(std::string(SAMPLE_RUN) + " -o " + dir + "/results -- " + copy + " small-writer",
                  output),
      0);
  EXPECT_NE(output.find("is set-user-ID: the dynamic loader ignores LD_PRELOAD"), std::string::npos)
      << output;
}

// SIGKILL at points spread over the run: every file stays readable, loses at most its
// torn last chunk, and reads as cut (no end record), never as a whole run.
TEST(HostHarm, SigkillAtAnyPointLeavesAReadableFileMarkedCut) {
  for (const int delay_ms : {40, 150, 330, 520}) {
    SCOPED_TRACE("killed after " + std::to_string(delay_ms) + " ms");
    const std::string dir = fresh_directory("sigkill-" + std::to_string(delay_ms));
    const std::string pid_file = dir + ".pid";
    std::string output;
    // The program's pid is the shell's (exec); the kill comes from outside the launcher.
    // The delay counts from the program's own results file (a slow machine, or a sanitizer
    // build, takes a while to get there); every wait is bounded.
    run_command("(" + std::string(SAMPLE_RUN) + " -f 2000 -o " + dir + " -- sh -c 'echo $$ > " +
                    pid_file + "; exec " + kHostHarm + " small-writer' &) ; " +
                    "for i in $(seq 5000); do [ -s " + pid_file + " ] && ls " + dir +
                    "/host_harm.*.cprof >/dev/null 2>&1 && break; sleep 0.001; done; sleep " +
                    std::to_string(delay_ms / 1000.0) + "; kill -KILL $(cat " + pid_file +
                    "); sleep 0.3",
                output);
    const auto processes = load_results(dir);
    // The shell's file ends at its exec; the program's is the one killed.
    const LoadedProcess* p = nullptr;
    for (const auto& each : processes) {
      if (each.process.executable.ends_with("/host_harm")) p = &each;
      if (each.process.executable.ends_with("/sh") || each.process.executable.ends_with("dash")) {
        EXPECT_TRUE(each.summary.ended) << "the shell's file, ended before its exec";
      }
    }
    ASSERT_NE(p, nullptr) << output;
    EXPECT_TRUE(p->summary.framed);
    EXPECT_FALSE(p->summary.ended) << "a killed process's file read as complete";
    EXPECT_LE(p->summary.issues.size(), 1u);
    for (const auto& issue : p->summary.issues) {
      EXPECT_NE(issue.message.find("torn tail"), std::string::npos) << issue.message;
    }
  }
}

}  // namespace
}  // namespace cprof::testing
