// sample-run on real programs: attribution per thread, churn, fork/exec, dlopen, crashes,
// counters, backends and faithful exit status and output.
#include <gtest/gtest.h>
#include <signal.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

const std::string kSampleRun = SAMPLE_RUN;
const std::string kPrograms = TEST_PROGRAMS;

struct SampledRun {
  int status = 0;
  std::string output;
  std::string dir;
  std::vector<LoadedProcess> processes;
};

// The self% of the first row of causal-report's function table whose name matches
// `function` (a regex), or -1 when there is none.
double self_percent(const std::string& report_text, const std::string& function) {
  std::smatch m;
  if (!std::regex_search(report_text, m,
                         std::regex("\\n *([0-9.]+)% +[0-9.]+% .* " + function))) {
    return -1;
  }
  return std::stod(m[1].str());
}

SampledRun sample(const std::string& name, const std::string& options, const std::string& program_and_args) {
  SampledRun run;
  run.dir = fresh_directory(name);
  run.status = run_command(kSampleRun + " -o " + run.dir + " " + options + " -- " + program_and_args,
                           run.output);
  run.processes = load_results(run.dir);
  return run;
}

const LoadedProcess* process_running(const SampledRun& run, const std::string& exe_suffix) {
  for (const auto& p : run.processes) {
    if (p.process.executable.size() >= exe_suffix.size() &&
        p.process.executable.compare(p.process.executable.size() - exe_suffix.size(),
                                     exe_suffix.size(), exe_suffix) == 0) {
      return &p;
    }
  }
  return nullptr;
}

TEST(SampleRun, EachThreadsSamplesComeFromItsOwnCode) {
  const SampledRun run = sample("two-threads", "-f 1000", kPrograms + "/two_threads");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  const auto& p = run.processes[0];
  EXPECT_TRUE(p.summary.issues.empty());
  // Learn each worker's tid from the samples themselves: whoever runs alpha_work.
  std::map<int64_t, std::set<std::string>> seen;  // tid -> worker functions on its stacks
  for (const auto& s : p.samples) {
    for (const auto& f : s.functions) {
      if (f == "alpha_work" || f == "beta_work" || f == "main_work") seen[s.tid].insert(f);
    }
  }
  ASSERT_EQ(seen.size(), 3u) << run.output;
  for (const auto& [tid, functions] : seen) {
    EXPECT_EQ(functions.size(), 1u) << "thread " << tid << " mixes work of other threads";
  }
  // ~300 ms of CPU at 1000 Hz: expect most of the 300 samples (the machine is shared).
  EXPECT_GT(p.total_samples("alpha_work"), 150u);
  EXPECT_GT(p.total_samples("beta_work"), 150u);
  EXPECT_GT(p.total_samples("main_work"), 75u);
  // Stacks reach main through the thread start routine; not just one frame.
  EXPECT_GT(p.total_samples("main"), 50u);
  EXPECT_EQ(p.threads.size(), 3u);
  EXPECT_EQ(p.thread_ends.size(), 3u);
  EXPECT_EQ(p.process.engine, "perf_event");
  EXPECT_FALSE(p.metrics.empty());
  EXPECT_GT(p.metrics.back().rss_bytes, 0u);
  // 750 ms of CPU in all. The spin loops read the thread's CPU clock, which some kernels
  // serve in the vDSO (user time) and others by a system call (half of it system time).
  EXPECT_GT(p.metrics.back().cpu_user_ns + p.metrics.back().cpu_system_ns, 500000000u);
}

// A thread that renames itself after the writer has written its thread record (a JVM
// names its threads once they run) ends with the name it last had, whether it ended
// before the process or was still running at exit; a thread that kept its name gets no
// second record.
TEST(SampleRun, ThreadsRenamedAfterTheyStartKeepTheirLastName) {
  const SampledRun run = sample("renamed", "-f 1000", kPrograms + "/renamed_threads");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  const auto& p = run.processes[0];
  std::multiset<std::string> names;
  for (const auto& t : p.threads) names.insert(t.name);
  EXPECT_EQ(names, (std::multiset<std::string>{"late-name", "main-renamed", "renamed_threads",
                                               "still-running"}))
      << run.output;
  // Renamed 300 ms after they began, long after the writer's first look (every 50 ms).
  EXPECT_EQ(p.thread_names.size(), 3u) << run.output;
}

// pthread_setname_np is interposed: the writer writes a new name at its next drain, so a
// program SIGKILLed later (no exit path) still shows its threads' last names.
TEST(SampleRun, ThreadRenamesSurviveASigkill) {
  const SampledRun run = sample("renamed-killed", "-f 1000", kPrograms + "/renamed_threads kill");
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  std::set<std::string> names;
  for (const auto& t : run.processes[0].threads) names.insert(t.name);
  EXPECT_EQ(names.count("still-running"), 1u) << run.output;
  EXPECT_EQ(names.count("main-renamed"), 1u) << run.output;
  EXPECT_EQ(names.count("late-name"), 1u) << run.output;
}

// Threads that block every signal are sampled all the same, and read back the mask they
// set (sampler/runtime/signal_mask.h); plain, the program prints the same.
TEST(SampleRun, ThreadsThatBlockEverySignalAreSampled) {
  const std::string program = kPrograms + "/masked_workers";
  std::string plain;
  ASSERT_EQ(run_command(program, plain), 0) << plain;
  EXPECT_EQ(plain,
            "mask before empty\nworker mask as set\nworker mask as set\n"
            "main mask as set, restored empty\n");
  const SampledRun run = sample("masked", "-f 1000", program);
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  EXPECT_EQ(run.output.find(plain), 0u) << run.output;
  const auto& p = run.processes[0];
  std::map<int64_t, size_t> per_thread;  // tid -> samples in masked_work
  for (const auto& s : p.samples) {
    for (const auto& f : s.functions) {
      if (f == "masked_work") ++per_thread[s.tid];
    }
  }
  ASSERT_EQ(per_thread.size(), 2u) << run.output;
  // 300 ms of CPU each at 1000 Hz; none at all when the signal stays blocked.
  for (const auto& [tid, n] : per_thread) EXPECT_GT(n, 150u) << "thread " << tid;
}

// An image exec'd from a thread that blocks every signal starts with that mask, the
// sampling signal included as far as it can tell, and is sampled.
TEST(SampleRun, ExecdImageStartsWithTheMaskTheProgramSet) {
  const std::string program = kPrograms + "/masked_workers exec";
  std::string plain;
  ASSERT_EQ(run_command(program, plain), 0) << plain;
  EXPECT_NE(plain.find("exec'd image mask as set\n"), std::string::npos) << plain;
  const SampledRun run = sample("masked-exec", "-f 1000", program);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(run.output.find(plain), 0u) << run.output;
  EXPECT_EQ(run.processes.size(), 2u) << run.output;
}

// Samples as deep as --depth 1024 allows (8 KiB each) still fit the ring between two
// drains: a ring sized for 512-byte samples held three, and this run dropped 289. The
// ring holds 50 ms of them; a writer kept off the CPUs longer than that (in loaded CI and
// ASan runs, one or two samples) may drop a few, and the run counts them.
TEST(SampleRun, DeepStacksAreNotDropped) {
  const SampledRun run = sample("deep", "-f 1000 --depth 1024", kPrograms + "/deep_stack");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  const auto& p = run.processes[0];
  ASSERT_EQ(p.thread_ends.size(), 1u);
  const uint64_t kept = p.total_samples("deep_bottom_work");
  EXPECT_GT(kept, 200u);  // 400 ms at 1000 Hz
  EXPECT_LE(p.thread_ends[0].dropped_samples, kept / 50) << run.output;
}

// A chain of processes, each forking the next as soon as it starts: every one ends (none
// hangs at exit on a lock copied from its parent's runtime threads) and writes its file.
TEST(SampleRun, ForkChainEndsAndEveryProcessWritesItsFile) {
#if defined(__SANITIZE_ADDRESS__)
  // Under ASan 46 of the 100 children hung in one run: gdb shows each one's main thread
  // in ASan's allocator (a quarantine refill freeing a ModuleRecord's string) waiting on
  // its lock, inherited held at the fork; the toolchain limit of the other forking tests
  // that skip here.
  GTEST_SKIP() << "ASan's allocator lock is not fork-safe in this toolchain";
#endif
  const SampledRun run = sample("fork-chain", "-f 1000", kPrograms + "/fork_churn 100");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("101 processes, all ended"), std::string::npos) << run.output;
  EXPECT_EQ(run.processes.size(), 101u);
}

// Children forked while the writer parses unwind tables on demand (a fresh image each
// round) all end: none inherits the module table's lock held by its parent's writer.
// Before the lock was held across fork, two to eleven children of 54 hung in every run.
// CPROF_CFI_TABLES=first-want: each image's tables (libc's takes ms) are parsed at the
// writer's first ticks, as the race needs; by the runtime's default rule a 100 ms round
// would not pay for libc's.
TEST(SampleRun, ChildrenForkedWhileTablesAreParsedEnd) {
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's ASan allocator takes no lock across fork (glibc's malloc does): the worker
  // thread mallocs in qsort, and a child forked meanwhile inherits ASan's spin lock held
  // and hangs in its writer thread's first allocation (seen in 3 of 4 ASan runs; the
  // child's threads in __asan::Allocator::Allocate). Not the lock this test is about.
  GTEST_SKIP() << "ASan's allocator lock is not fork-safe in this toolchain";
#endif
  setenv("CPROF_CFI_TABLES", "first-want", 1);
  const SampledRun run = sample("fork-parsing", "-f 1000", kPrograms + "/fork_while_parsing 6");
  unsetenv("CPROF_CFI_TABLES");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("every round's children ended"), std::string::npos) << run.output;
  EXPECT_GT(run.processes.size(), 12u);  // six images and their children (fewer when slow)
}

// 100,000 dlopens of objects the program already has (itself, libm with RTLD_NOLOAD),
// while the main thread forks children that walk the loader's list. The runtime used to
// re-read every module at each dlopen and dlclose: a snapshot kept per call (a peak of
// 2.4 GiB against the plain run's 3 MiB), and a child forked during one of its walks
// inherited the loader's lock held and hung (3 of the first 11). Now it re-reads only
// when the loader's counts of loads and unloads moved, and a fork waits for its walks.
TEST(SampleRun, DlopenOfLoadedObjectsCostsNoMemoryAndForksEnd) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan's allocator lock is not fork-safe in this toolchain";
#endif
  const std::string program = kPrograms + "/dlopen_loaded 100000";
  std::string plain_output;
  ASSERT_EQ(run_command(program, plain_output), 0) << plain_output;
  const SampledRun run = sample("dlopen-loaded", "-f 1000", program);
  ASSERT_EQ(run.status, 0) << run.output;
  std::smatch plain;
  std::smatch sampled;
  const std::regex lines("(^|\n)0 of ([0-9]+) children hung\npeak ([0-9]+) KiB");
  ASSERT_TRUE(std::regex_search(plain_output, plain, lines)) << plain_output;
  ASSERT_TRUE(std::regex_search(run.output, sampled, lines)) << run.output;
  EXPECT_GT(std::stoi(sampled[2].str()), 0) << run.output;
  // The runtime's own buffers and threads, not a growth per call.
  EXPECT_LT(std::stol(sampled[3].str()), std::stol(plain[3].str()) + 64 * 1024) << run.output;
}

// A program that exits while 60 threads run, with counters: the exit path and the
// writer's drain take the runtime's two locks in one order. (Disarming under the thread
// registry's lock and then taking the writer's, for the counters' totals, deadlocked in
// 9 of 40 runs.) Twenty runs, each bounded by `timeout`.
TEST(SampleRun, ExitWithRunningThreadsAndCountersDoesNotDeadlock) {
  int hung = 0;
  std::string last;
  for (int i = 0; i < 20; ++i) {
    const std::string dir = fresh_directory("exit-threads-" + std::to_string(i));
    const int status = run_command("timeout 20 " + kSampleRun + " -q -o " + dir +
                                       " -e context-switches,page-faults -- " + kPrograms +
                                       "/exit_with_threads 60",
                                   last);
    if (status == 124) ++hung;
    EXPECT_TRUE(status == 0 || status == 124) << last;
  }
  EXPECT_EQ(hung, 0);
}

// libpfm4 is loaded into the program only when events are named: its tables cost every
// process start ~40,000 relocations (pfm_api.h).
TEST(SampleRun, LibpfmIsLoadedOnlyForEvents) {
  const std::string program = kPrograms + "/loaded_libraries libpfm.so.4";
  const SampledRun plain_run = sample("no-events", "", program);
  ASSERT_EQ(plain_run.status, 0) << plain_run.output;
  EXPECT_NE(plain_run.output.find("libpfm.so.4: not loaded"), std::string::npos) << plain_run.output;
  const SampledRun with_events = sample("events", "-e page-faults", program);
  ASSERT_EQ(with_events.status, 0) << with_events.output;
  EXPECT_NE(with_events.output.find("libpfm.so.4: loaded"), std::string::npos)
      << with_events.output;
}

TEST(SampleRun, ThreadsStartedBeforeTheRuntimeAreSampled) {
  const SampledRun run = sample("early", "-f 1000", kPrograms + "/early_thread");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  const auto& p = run.processes[0];
  size_t adopted = 0;
  for (const auto& t : p.threads) adopted += t.existed_before_start ? 1 : 0;
  EXPECT_EQ(adopted, 1u);
  EXPECT_GT(p.total_samples("early_work"), 100u);
}

TEST(SampleRun, MpiRankIsRecordedAndInTheFileName) {
  std::string out;
  const std::string dir = fresh_directory("rank");
  ASSERT_EQ(run_command("OMPI_COMM_WORLD_RANK=4 " + kSampleRun + " -q -o " + dir + " -- " +
                            kPrograms + "/crasher exit 0",
                        out),
            0)
      << out;
  const auto processes = load_results(dir);
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].process.rank, 4);
  EXPECT_NE(processes[0].file.find(".rank4.cprof"), std::string::npos) << processes[0].file;
}

TEST(SampleRun, OutputAndExitStatusAreTheProgramsOwn) {
  std::string plain;
  const int plain_status = run_command(kPrograms + "/crasher exit 3", plain);
  const SampledRun run = sample("exit-status", "-q", kPrograms + "/crasher exit 3");
  EXPECT_EQ(plain_status, 3);
  EXPECT_EQ(run.status, 3);
  EXPECT_EQ(run.output, plain);  // -q: nothing of ours on the terminal
}

TEST(SampleRun, SigtermIsForwardedToTheProgram) {
  std::string out;
  const std::string dir = fresh_directory("sigterm");
  const int status = run_command(
      "sh -c '" + kSampleRun + " -q -o " + dir + " -- " + kPrograms +
          "/signal_waiter & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid; echo status=$?'",
      out);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("terminated gracefully"), std::string::npos) << out;
  EXPECT_NE(out.find("status=5"), std::string::npos) << out;
}

TEST(SampleRun, CounterThatCountsNothingIsFlagged) {
  // A program already in the page cache takes no major faults: run once first, so that
  // the program, the launcher and the runtime library are there (a build beside the
  // suite may have pushed them out).
  sample("zero-warm", "-q", kPrograms + "/exec_target");
  const SampledRun run = sample("zero", "-e major-faults", kPrograms + "/exec_target");
  EXPECT_EQ(run.status, 7) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  ASSERT_FALSE(run.processes[0].events.empty());
  EXPECT_EQ(run.processes[0].events.back().status, format::EventStatus::counted_zero);
}

// Regression: linking libunwind put libunwind.so.8's _Unwind_* ahead of libgcc_s in a C
// program's scope, so C++ code it loaded threw through libunwind.
TEST(SampleRun, ExceptionsStayWithTheProgramsUnwinder) {
  const SampledRun run = sample("unwinder-scope", "-q", "env LD_DEBUG=bindings " + kPrograms +
                                                            "/c_host " + THROWER_LIB);
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.output.find("caught 1000"), std::string::npos);
  EXPECT_NE(run.output.find("libgcc_s.so.1 [0]: normal symbol `_Unwind_RaiseException'"),
            std::string::npos);
  EXPECT_EQ(run.output.find("to /lib/x86_64-linux-gnu/libunwind.so.8 [0]: normal symbol `_Unwind"),
            std::string::npos);
}

TEST(SampleRun, RuntimeExportsOnlyTheFunctionsItInterposes) {
  std::string out;
  ASSERT_EQ(run_command(std::string("nm -D --defined-only ") + RUNTIME_LIBRARY, out), 0);
  std::set<std::string> exported;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > 19 && line[17] != 'U') exported.insert(line.substr(19));
  }
  const std::set<std::string> expected{
      "pthread_create", "dlopen", "dlclose", "execve", "execv", "execvp", "execvpe", "execl",
      "execlp", "execle", "fexecve", "execveat", "syscall", "pthread_sigmask", "sigprocmask",
      "sigaction", "signal",
      // the descriptor calls (fd_interpose.cpp) and the set of owned descriptors
      "close", "close_range", "closefrom", "dup2", "dup3", "cprof_owned_fds_v1", "_exit", "_Exit",
      // the calls that sleep (sleep_interpose.cpp, for --clock wall)
      "nanosleep", "clock_nanosleep", "sleep", "usleep", "select", "pselect", "poll", "__poll_chk",
      "ppoll", "__ppoll_chk", "epoll_wait", "epoll_pwait", "sigsuspend", "pause", "sigwaitinfo",
      "sigtimedwait",
      // thread renames, written at the next drain (thread_name_interpose.cpp)
      "pthread_setname_np"};
  EXPECT_EQ(exported, expected) << out;
}

TEST(SampleRun, ThousandsOfShortLivedThreads) {
  const SampledRun run = sample("churn", "-f 1000", kPrograms + "/thread_churn 3000");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  const auto& p = run.processes[0];
  EXPECT_EQ(p.thread_ends.size(), 3001u);  // the main thread too
  EXPECT_GT(p.total_samples("churn_work"), 500u);
}

TEST(SampleRun, ForkedChildAndExecedImageWriteTheirOwnFiles) {
  const SampledRun run = sample("fork-exec", "-f 1000",
                         kPrograms + "/fork_exec " + kPrograms + "/exec_target");
  EXPECT_EQ(run.status, 7) << run.output;
  ASSERT_EQ(run.processes.size(), 3u) << run.output;
  const LoadedProcess* target = process_running(run, "/exec_target");
  ASSERT_NE(target, nullptr);
  EXPECT_GT(target->total_samples("target_work"), 100u);
  EXPECT_EQ(target->total_samples("child_work"), 0u);
  size_t parents = 0;
  size_t children = 0;
  for (const auto& p : run.processes) {
    if (&p == target) continue;
    if (p.total_samples("parent_work") > 100) {
      ++parents;
      EXPECT_EQ(p.total_samples("child_work"), 0u);
    }
    if (p.total_samples("child_work") > 100) {
      ++children;
      EXPECT_EQ(p.total_samples("parent_work"), 0u);
      EXPECT_EQ(target->process.pid, p.process.pid);  // exec keeps the pid
    }
  }
  EXPECT_EQ(parents, 1u);
  EXPECT_EQ(children, 1u);
}

// The exec'd image is profiled however the child execs: after clearing its environment
// (env -i: the runtime keeps its settings from its start), or through calls that make
// the system call past execve (the sampling event, counting through exec's kernel work,
// used to signal the new image to death: exit 190 instead of 7).
class SampleRunExec : public ::testing::TestWithParam<const char*> {};

TEST_P(SampleRunExec, TheExecedImageIsProfiled) {
  const std::string how = GetParam();
  const SampledRun run = sample("fork-exec-" + how, "-f 1000",
                                kPrograms + "/fork_exec " + kPrograms + "/exec_target " + how);
  std::string seen = run.output;  // and what each file held, for a failure to explain itself
  for (const auto& p : run.processes) {
    seen += p.process.executable + " pid " + std::to_string(p.process.pid) + ": " +
            std::to_string(p.samples.size()) + " samples, issues:";
    for (const auto& issue : p.summary.issues) seen += " " + issue.message;
    seen += "\n";
  }
  EXPECT_EQ(run.status, 7) << seen;
  ASSERT_EQ(run.processes.size(), 3u) << seen;
  const LoadedProcess* target = process_running(run, "/exec_target");
  ASSERT_NE(target, nullptr) << seen;
  EXPECT_GT(target->total_samples("target_work"), 100u) << seen;
}

INSTANTIATE_TEST_SUITE_P(How, SampleRunExec, ::testing::Values("clearenv", "syscall", "fexecve"));

// Two runs into one directory (the default -o results makes it the normal case) used to
// make one profile of both programs without a word. The earlier run is set aside as
// DIR.old, as perf keeps perf.data.old; --append adds deliberately; an MPI job's ranks
// share the directory; a directory with other files is never moved.
TEST(SampleRun, AnEarlierRunIsSetAsideNotMerged) {
  const SampledRun first = sample("twice", "-f 1000", kPrograms + "/exec_target");
  ASSERT_EQ(first.processes.size(), 1u) << first.output;
  std::string out;
  run_command(kSampleRun + " -f 1000 -o " + first.dir + " -- " + kPrograms + "/two_threads", out);
  EXPECT_NE(out.find("held an earlier run (1 results file): moved to " + first.dir + ".old/"),
            std::string::npos)
      << out;
  const auto now = load_results(first.dir);
  ASSERT_EQ(now.size(), 1u);
  EXPECT_NE(now[0].process.executable.find("two_threads"), std::string::npos);
  const auto old = load_results(first.dir + ".old");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_NE(old[0].process.executable.find("exec_target"), std::string::npos);

  run_command(
      kSampleRun + " -f 1000 --append -o " + first.dir + " -- " + kPrograms + "/exec_target", out);
  EXPECT_EQ(load_results(first.dir).size(), 2u) << out;
  run_command("OMPI_COMM_WORLD_RANK=1 " + kSampleRun + " -f 1000 -o " + first.dir + " -- " +
                  kPrograms + "/exec_target",
              out);
  EXPECT_EQ(load_results(first.dir).size(), 3u) << out;

  std::ofstream(first.dir + "/notes.txt") << "mine\n";
  EXPECT_NE(run_command(kSampleRun + " -o " + first.dir + " -- " + kPrograms + "/exec_target", out),
            0);
  EXPECT_NE(out.find("holds 3 results files of an earlier run and other files"), std::string::npos)
      << out;
  EXPECT_TRUE(std::filesystem::exists(first.dir + "/notes.txt"));
  std::filesystem::remove_all(first.dir + ".old");
}

TEST(SampleRun, DlopenedLibraryFunctionsAreNamed) {
  const SampledRun run = sample("dlopen", "-f 1000", kPrograms + "/dlopen_host " + TEST_PLUGIN);
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  const auto& p = run.processes[0];
  bool recorded = false;
  for (const auto& m : p.modules) recorded |= m.path.find("libtest_plugin.so") != std::string::npos;
  EXPECT_TRUE(recorded);
  EXPECT_GT(p.total_samples("plugin_work"), 150u);
}

// SIGKILL cannot be caught: what the runtime wrote before it stays readable, and the summary
// says the rest is lost. (Crashes and abort() are caught and lose nothing:
// signals_e2e_test.cpp.)
TEST(SampleRun, KilledProgramKeepsWhatItWrote) {
  const SampledRun run = sample("crash-kill", "-f 1000", kPrograms + "/crasher kill");
  EXPECT_EQ(run.status, 128 + SIGKILL) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  // 400 ms of work at 1000 Hz; the last ~100 ms may be lost with the process.
  EXPECT_GT(run.processes[0].total_samples("doomed_work"), 150u);
  EXPECT_NE(run.output.find("warning: the program was killed by SIGKILL: the samples it took "
                            "after its last write are lost\n"),
            std::string::npos)
      << run.output;
}

TEST(SampleRun, SummaryOfAProgramWithoutSamplesSaysHowMuchCpuItUsed) {
  // /bin/true uses a few ms of CPU, most of it loading libraries: too little at 10 Hz.
  const SampledRun run = sample("no-samples", "-f 10", "/bin/true");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::regex line(
      "sample-run: warning: no samples: the program used only [0-9.]+ ms of CPU time \\(a "
      "sample is taken every 100.0 ms of it\\)\n");
  EXPECT_TRUE(std::regex_search(run.output, line)) << run.output;
  EXPECT_EQ(run.output.find("killed by"), std::string::npos) << run.output;
}

TEST(SampleRun, TimerBackendSamplesToo) {
  const SampledRun run = sample("timer", "--backend timer -f 1000", kPrograms + "/two_threads");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  EXPECT_EQ(run.processes[0].process.engine, "timer");
  // CPU-time timers expire on scheduler ticks, so fewer samples arrive, each weighing the
  // periods that passed: the time they add up to is what must be right (300 ms of CPU).
  EXPECT_NEAR(static_cast<double>(run.processes[0].total_time_ns("alpha_work")) / 1e6, 300.0, 45.0);
}

TEST(SampleRun, RefusedPerfEventFallsBackToTimersWithOneLine) {
  std::string out;
  const std::string dir = fresh_directory("refused");
  const int status = run_command(kPrograms + "/deny_perf " + kSampleRun + " -f 1000 -o " + dir +
                                     " -- " + kPrograms + "/two_threads",
                                 out);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("perf_event_open refused"), std::string::npos) << out;
  EXPECT_NE(out.find("POSIX CPU-time timers"), std::string::npos) << out;
  const auto processes = load_results(dir);
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].process.engine, "timer");
  EXPECT_GT(processes[0].total_time_ns("alpha_work"), 200000000u);
}

// Code run from a second mapping of the program's text (V8's remapped builtins in node)
// is named like the original, not "[unknown]".
TEST(SampleRun, CodeRunFromARemappedCopyOfTheTextIsNamed) {
  const SampledRun run = sample("remapped", "-f 1000", kPrograms + "/remapped_text 400");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  const auto& p = run.processes[0];
  ASSERT_GT(p.samples.size(), 100u);
  EXPECT_GT(p.self_samples("movable_spin"), p.samples.size() * 8 / 10) << p.samples.size();
  const auto remapped = std::count_if(p.modules.begin(), p.modules.end(), [](const auto& m) {
    return m.path.find("remapped_text") != std::string::npos;
  });
  EXPECT_EQ(remapped, 2);  // the loader's mapping and the copy
}

#ifdef CAUSAL_REPORT
// jit_code sampled at 1000 Hz, and the paths of its perf maps: the one the program left in
// /tmp and the copy that sample-run kept with the results ("" unless one process ran).
struct JitRun {
  SampledRun run;
  std::string runtime_map;
  std::string kept_map;
};
JitRun sample_jit(const std::string& name) {
  JitRun j{sample(name, "-f 1000", kPrograms + "/jit_code 400"), "", ""};
  if (j.run.processes.size() == 1) {
    const auto& p = j.run.processes[0];
    j.runtime_map = "/tmp/perf-" + std::to_string(p.process.pid) + ".map";
    j.kept_map = p.file.substr(0, p.file.rfind('.')) + ".perf-map";
  }
  return j;
}
#endif

// Code in anonymous memory that the program names in /tmp/perf-PID.map (a JIT: node
// --perf-basic-prof): the sampler keeps the map next to the results and the report names
// the samples from it.
TEST(SampleRun, JitCodeNamedInAPerfMapIsNamedInTheReport) {
#ifndef CAUSAL_REPORT
  GTEST_SKIP() << "causal-report is not built";
#else
  const std::string report = CAUSAL_REPORT;
  const auto [run, runtime_map, kept] = sample_jit("jit");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  std::filesystem::remove(runtime_map);
  ASSERT_TRUE(std::filesystem::exists(kept)) << kept;
  std::string text;
  ASSERT_EQ(run_command(report + " " + run.dir, text), 0) << text;
  EXPECT_GT(self_percent(text, "jit_spin"), 80.0) << text;
  EXPECT_EQ(text.find("outside every mapped file"), std::string::npos) << text;
#endif
}

// Without any map the JIT code is "[unknown]", and the report says what it probably is
// and how to have it named (report/profile/unnamed_code.h), in text and in JSON.
TEST(SampleRun, JitCodeWithoutAPerfMapIsSaidToBeUnnamed) {
#ifndef CAUSAL_REPORT
  GTEST_SKIP() << "causal-report is not built";
#else
  const std::string report = CAUSAL_REPORT;
  const auto [run, runtime_map, kept] = sample_jit("jit-unnamed");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  const auto& p = run.processes[0];
  std::filesystem::remove(runtime_map);
  ASSERT_TRUE(std::filesystem::remove(kept));
  std::string text;
  ASSERT_EQ(run_command(report + " " + run.dir, text), 0) << text;
  EXPECT_GT(self_percent(text, "\\[unknown\\]"), 80.0) << text;
  // Named by its command line: "jit_code 400 [PID]".
  const std::regex note("note: jit_code[^\\[\\n]*\\[" + std::to_string(p.process.pid) +
                        "\\]: ([0-9]+)% of the samples \\([0-9]+\\) ran in code outside every "
                        "mapped file;\\s+JIT-compiled code\\? No perf map names it");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, note)) << text;
  EXPECT_GT(std::stoi(m[1]), 80) << text;
  std::string json;
  ASSERT_EQ(run_command(report + " --format json " + run.dir, json), 0) << json;
  // jit_code runs 400 ms of wall time: on a loaded machine, fewer samples.
  ASSERT_TRUE(std::regex_search(json, m, std::regex("\"samples\": ([0-9]+)"))) << json;
  const double samples = std::stod(m[1]);
  ASSERT_TRUE(std::regex_search(json, m, std::regex("\"unnamed_code_samples\": ([0-9]+)"))) << json;
  EXPECT_GT(std::stod(m[1]), 0.8 * samples) << json;
  EXPECT_GT(samples, 20) << json;
#endif
}

#ifdef CAUSAL_REPORT
// A run at 1000 Hz and causal-report's text for it.
struct Reported {
  SampledRun run;
  int status = -1;  // causal-report's
  std::string text;
};
Reported sample_and_report(const std::string& name, const std::string& program_and_args,
                           const std::string& report_options = "") {
  Reported r{sample(name, "-f 1000", program_and_args), -1, ""};
  r.status = run_command(std::string(CAUSAL_REPORT) + " " + report_options + " " + r.run.dir, r.text);
  return r;
}
#endif

// The vDSO has no file; the report names its frames from its own vDSO, the same image on
// this host (report/symbols/host_vdso.h). The spin loops read the thread's CPU clock
// through clock_gettime(), which runs in the vDSO and makes its system call from there.
TEST(SampleRun, VdsoFramesAreNamedFromThisHostsVdso) {
#ifndef CAUSAL_REPORT
  GTEST_SKIP() << "causal-report is not built";
#else
  const Reported r = sample_and_report("vdso", kPrograms + "/two_threads");
  ASSERT_EQ(r.run.status, 0) << r.run.output;
  ASSERT_EQ(r.status, 0) << r.text;
  const std::string& text = r.text;
  EXPECT_EQ(text.find("[vdso]"), std::string::npos) << text;
  EXPECT_GT(self_percent(text, "(__vdso_)?clock_gettime\\n"), 5.0) << text;
#endif
}

// A program with no symbols at all: each of its functions is one row, named by where its
// unwind table says it starts, not a row per sampled address (symbolize/elf/
// unwind_functions.h). alpha_work, beta_work and main_work spin: three hot rows.
TEST(SampleRun, FunctionsOfAStrippedProgramAreRowsOfTheirOwn) {
#ifndef CAUSAL_REPORT
  GTEST_SKIP() << "causal-report is not built";
#else
  const Reported r = sample_and_report("stripped", kPrograms + "/two_threads_stripped", "--top 0");
  ASSERT_EQ(r.run.status, 0) << r.run.output;
  ASSERT_EQ(r.status, 0) << r.text;
  const std::string& text = r.text;
  EXPECT_EQ(text.find("two_threads_stripped+0x"), std::string::npos) << text;
  const std::regex row("\\n *([0-9.]+)% +[0-9.]+% .* sub_[0-9a-f]+ \\(two_threads_stripped\\)");
  int hot = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator(); ++it) {
    if (std::stod((*it)[1].str()) > 3.0) ++hot;
  }
  EXPECT_EQ(hot, 3) << text;
#endif
}

// Debian's libz is stripped: its internal functions are sub_ rows, most of the program's
// time. The report names the package whose debug symbols would name them, found in dpkg's
// lists of installed files (report/symbols/debug_package.h).
TEST(SampleRun, AStrippedLibrarysDebugPackageIsNamed) {
#ifndef CAUSAL_REPORT
  GTEST_SKIP() << "causal-report is not built";
#else
  if (std::system("dpkg -S libz.so.1 2>/dev/null | grep -q '^zlib1g:'") != 0)
    GTEST_SKIP() << "no Debian package zlib1g holds libz.so.1 here";
  const Reported r = sample_and_report("zlib", kPrograms + "/zlib_compress", "--top 0");
  ASSERT_EQ(r.run.status, 0) << r.run.output;
  ASSERT_EQ(r.status, 0) << r.text;
  if (r.text.find("(libz.so") == std::string::npos)
    GTEST_SKIP() << "libz's debug symbols are installed here: its functions have names";
  const std::regex note(
      "note: libz\\.so\\.1[.0-9]*: [0-9]+% of its samples \\([0-9]+\\) are in functions its "
      "symbols "
      "do not name; Debian's zlib1g-dbgsym names them \\(apt-get install zlib1g-dbgsym");
  // The header wraps a long note, continuing it six spaces in.
  const std::string text = std::regex_replace(r.text, std::regex("\\n      "), " ");
  EXPECT_TRUE(std::regex_search(text, note)) << r.text;
#endif
}

#ifdef CAUSAL_REPORT
// Annotated source (causal-report --source): the program's hottest line is spin's loop.
TEST(AnnotatedSource, TheHottestLineIsTheLoopBody) {
  const std::string dir = fresh_directory("annotated-source");
  std::string out;
  ASSERT_EQ(run_command(kSampleRun + " -q -o " + dir + "/r -- " + kPrograms +
                            "/attach_target --split 0.5 2>&1",
                        out),
            0)
      << out;
  const std::string report_bin = CAUSAL_REPORT;
  ASSERT_EQ(run_command(report_bin + " " + dir + "/r --source attach_target.cpp 2>&1", out), 0)
      << out;
  EXPECT_NE(out.find("Source: "), std::string::npos) << out;
  // The row with the most self time is the loop's body.
  std::smatch m;
  double best = -1;
  std::string best_text;
  const std::regex row("\\n *([0-9.]+)% +[0-9.]+% +[^\\n]*? ([0-9]+)  ([^\\n]*)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), row); it != std::sregex_iterator();
       ++it) {
    if (std::stod((*it)[1].str()) > best) {
      best = std::stod((*it)[1].str());
      best_text = (*it)[3].str();
    }
  }
  EXPECT_GT(best, 20) << out;
  EXPECT_NE(best_text.find("6364136223846793005ull"), std::string::npos) << out;
  // A file with no sampled line, and a text-only view asked for in JSON.
  EXPECT_EQ(run_command(report_bin + " " + dir + "/r --source nosuch.cpp 2>&1", out), 2) << out;
  EXPECT_NE(out.find("--source nosuch.cpp: no sampled line is in a file of that name; files "
                     "with the most time: "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("attach_target.cpp"), std::string::npos) << out;
  EXPECT_EQ(
      run_command(report_bin + " " + dir + "/r --source attach_target.cpp --format json 2>&1", out),
      1)
      << out;
}
#endif

#ifdef CAUSAL_REPORT
// causal-report --diff BASE NEW: the functions whose time changed most, each run's share.
TEST(ReportDiff, TheFunctionsThatChangedMostComeFirst) {
  const std::string dir = fresh_directory("report-diff");
  const std::string target = kPrograms + "/attach_target";
  std::string out;
  ASSERT_EQ(
      run_command(kSampleRun + " -q -o " + dir + "/base -- " + target + " --split 0.5 2>&1", out),
      0)
      << out;
  ASSERT_EQ(
      run_command(kSampleRun + " -q -o " + dir + "/new -- " + target + " --faults 0.5 2>&1", out),
      0)
      << out;
  const std::string report_bin = CAUSAL_REPORT;
  ASSERT_EQ(run_command(report_bin + " --diff " + dir + "/base " + dir + "/new 2>&1", out), 0)
      << out;
  // The header wraps at the report's width, where depends on the directories' length (a
  // 3-digit pid in the name moved the break before "(base)"): read it unwrapped.
  const std::string header =
      std::regex_replace(out.substr(0, out.find("\nsampled:")), std::regex("\n +"), " ");
  EXPECT_NE(header.find("comparing " + dir + "/new (new) with " + dir + "/base (base)"),
            std::string::npos)
      << out;
  // spin's time went away, touch_pages' came: the two largest changes, in that order of size.
  const auto spin_row = out.find("::spin(");
  const auto touch_row = out.find("touch_pages");
  ASSERT_NE(spin_row, std::string::npos) << out;
  ASSERT_NE(touch_row, std::string::npos) << out;
  const auto line_of = [&](size_t at) {
    return out.substr(out.rfind('\n', at) + 1, out.find('\n', at) - out.rfind('\n', at) - 1);
  };
  EXPECT_NE(line_of(spin_row).find(" -"), std::string::npos) << out;
  EXPECT_NE(line_of(touch_row).find(" +"), std::string::npos) << out;
  // A run against itself: nothing changed.
  ASSERT_EQ(run_command(report_bin + " --diff " + dir + "/base " + dir + "/base 2>&1", out), 0)
      << out;
  EXPECT_NE(out.find("(top 0 of 0 that changed)"), std::string::npos) << out;
  // In HTML: the same table, and the differential flame graph's data with the base's.
  ASSERT_EQ(
      run_command(report_bin + " --diff " + dir + "/base " + dir + "/new --format html 2>&1", out),
      0)
      << out.substr(0, 2000);
  EXPECT_NE(out.find("<table id=\"diff\">"), std::string::npos) << out.substr(0, 2000);
  EXPECT_NE(out.find("touch_pages"), std::string::npos);
  EXPECT_NE(out.find("\"base_total\": "), std::string::npos);
  // Text and HTML only: other formats are refused, with what to use instead.
  EXPECT_EQ(
      run_command(report_bin + " --diff " + dir + "/base " + dir + "/new --format json 2>&1", out),
      1)
      << out;
  EXPECT_NE(out.find("pprof -diff_base"), std::string::npos) << out;
  EXPECT_EQ(run_command(report_bin + " --diff " + dir + "/nosuch " + dir + "/new 2>&1", out), 2)
      << out;
}
#endif

// A program killed before its exit path leaves no copy: the report reads the runtime's own
// map in /tmp, on this host, and says so.
TEST(SampleRun, JitCodeOfAProcessThatLeftNoCopyIsNamedFromTheRuntimesMap) {
#ifndef CAUSAL_REPORT
  GTEST_SKIP() << "causal-report is not built";
#else
  const auto [run, runtime_map, kept] = sample_jit("jit-killed");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  ASSERT_TRUE(std::filesystem::remove(kept));
  std::string text;
  const int status = run_command(std::string(CAUSAL_REPORT) + " " + run.dir, text);
  std::filesystem::remove(runtime_map);
  ASSERT_EQ(status, 0) << text;
  EXPECT_GT(self_percent(text, "jit_spin"), 80.0) << text;
  EXPECT_EQ(text.find("outside every mapped file"), std::string::npos) << text;
  EXPECT_NE(text.find("JIT code named from " + runtime_map +
                      " (the process ended without copying it: killed?)"),
            std::string::npos)
      << text;
#endif
}

TEST(SampleRun, FramePointerUnwinderRuns) {
  const SampledRun run = sample("fp", "--unwind fp -f 1000", kPrograms + "/two_threads_fp");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  EXPECT_EQ(run.processes[0].process.unwinder, "fp");
  EXPECT_GT(run.processes[0].self_samples("alpha_work") + run.processes[0].total_samples("alpha_work"), 100u);
  EXPECT_EQ(run.output.find("keeps no frame pointer"), std::string::npos) << run.output;
}

// --unwind fp on a program built like a user's (-O2, no frame pointers) gave cut stacks
// without a word; the launcher looks at its functions' first instructions and says so.
TEST(SampleRun, FramePointerUnwinderWarnsOfAProgramWithoutThem) {
  const SampledRun run = sample("fp-none", "--unwind fp -f 200", kPrograms + "/two_threads");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("--unwind fp: " + kPrograms + "/two_threads keeps no frame pointer"),
            std::string::npos)
      << run.output;
}

TEST(SampleRun, WallClockShowsSleepingWithoutShorteningIt) {
  const SampledRun run = sample("wall", "--clock wall -f 200", kPrograms + "/sleeper");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  // 400 ms asleep in nanosleep: one sample that stands for all of it, taken when the call
  // returns (sampler/runtime/sleep_interpose.cpp), under the function that slept.
  EXPECT_GT(run.processes[0].total_time_ns("sleepy_wait", format::SampleClock::wall), 380'000'000u);
  const auto pos = run.output.find("elapsed_ms ");
  ASSERT_NE(pos, std::string::npos);
  EXPECT_GE(std::stoi(run.output.substr(pos + 11)), 495);
}

// Every call that sleeps and that SA_RESTART does not restart sleeps in full under the wall
// clock's signals, as it does unprofiled, and its time is under the function that called
// it; a signal of the program's still interrupts poll() and ends sigsuspend(). Before,
// each returned at the first sample (perl's select() of 300 ms returned after 20 ms).
TEST(SampleRun, WallClockLeavesTheProgramsSleepsWhole) {
  const std::string program = kPrograms + "/wall_sleeps";
  std::string plain;
  ASSERT_EQ(run_command(program, plain), 0) << plain;
  EXPECT_EQ(plain.find("woke early"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("woke at another time"), std::string::npos) << plain;
  const SampledRun run = sample("wall-sleeps", "--clock wall -f 200", program);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(run.output.find(plain), 0u) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  for (const char* function : {"in_nanosleep", "in_clock_nanosleep", "in_usleep", "in_select",
                               "in_pselect", "in_poll", "in_ppoll", "in_epoll_wait"}) {
    EXPECT_GT(run.processes[0].total_time_ns(function, format::SampleClock::wall), 90'000'000u)
        << function;
  }
}

// A thread asleep in a call that holds the sampling signal when the process exits has its
// sample written by the exit path: the whole sleep so far, under the code that called it.
TEST(SampleRun, WallClockKeepsASleepThatTheProcessEndsIn) {
  const SampledRun run = sample("asleep-at-exit", "--clock wall -f 200", kPrograms + "/asleep_at_exit");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  const auto& p = run.processes[0];
  // 400 ms asleep from shortly after the thread started until exit.
  EXPECT_GT(p.total_time_ns("wait_forever_in_poll", format::SampleClock::wall), 300'000'000u)
      << run.output;
  bool named = false;
  for (const auto& s : p.samples) {
    if (s.functions.size() < 3 || s.functions[1] != "wait_forever_in_poll") continue;
    named = true;
    EXPECT_EQ(s.functions[0], "poll");  // the interposer stands for the call
    EXPECT_EQ(s.functions[2], "idle_loop(void*)");
  }
  EXPECT_TRUE(named) << run.output;
}

#ifdef CAUSAL_REPORT
// The off-CPU time of `--by wait`'s row whose call matches `call` and whose caller is
// `caller` (regexes), in ms, or -1 when no row has them.
double off_cpu_ms(const std::string& table, const std::string& call, const std::string& caller) {
  std::smatch m;
  const std::regex row("\\n *([0-9.]+) (ns|µs|ms|s) +[^\\n]*  " + call + " +" + caller + " \\(");
  if (!std::regex_search(table, m, row)) return -1;
  const double v = std::stod(m[1].str());
  const std::string unit = m[2].str();
  return unit == "s" ? v * 1000 : unit == "ms" ? v : unit == "µs" ? v / 1000 : v / 1e6;
}
#endif

// Where threads waited: with both clocks, the report names each wait by the call the
// program made (not glibc's futex internals) and the program's code that made it, with
// the time off CPU there. waiters blocks 400 ms of main's CPU in a condition variable and
// in read(), then 200 ms of the consumer's in std::thread::join. Without wall-clock
// samples the view is refused in one line.
TEST(SampleRun, WallClockNamesEachWaitByItsCallAndCaller) {
#ifndef CAUSAL_REPORT
  GTEST_SKIP() << "causal-report is not built";
#else
  const std::string report = CAUSAL_REPORT;
  const SampledRun run = sample("waits", "--clock wall -f 500", kPrograms + "/waiters");
  ASSERT_EQ(run.status, 0) << run.output;
  std::string text;
  ASSERT_EQ(run_command(report + " -q --by wait " + run.dir, text), 0) << text;
  // At least the CPU time the other thread spent meanwhile (less a few samples' worth);
  // at most what a loaded machine could stretch it to.
  const double cond = off_cpu_ms(text, "pthread_cond_wait", "await_item");
  EXPECT_GT(cond, 330) << text;
  EXPECT_LT(cond, 5000) << text;
  const double read = off_cpu_ms(text, "read", "read_message");  // not __GI___libc_read
  EXPECT_GT(read, 330) << text;
  EXPECT_LT(read, 5000) << text;
  const double join = off_cpu_ms(text, "std::thread::join\\(\\)", "main");
  EXPECT_GT(join, 150) << text;
  EXPECT_LT(join, 5000) << text;
  EXPECT_EQ(text.find("futex"), std::string::npos) << text;
  // The function table points to the view.
  ASSERT_EQ(run_command(report + " -q " + run.dir, text), 0) << text;
  EXPECT_NE(text.find("Off CPU: "), std::string::npos) << text;
  EXPECT_NE(text.find("--by wait lists"), std::string::npos) << text;

  const SampledRun cpu = sample("waits-cpu", "-f 500", kPrograms + "/waiters");
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  EXPECT_EQ(run_command(report + " -q --by wait " + cpu.dir, text), 2) << text;
  EXPECT_NE(text.find("--by wait needs wall-clock samples beside the CPU-clock ones"),
            std::string::npos)
      << text;
#endif
}

// A sleeping call the program leaves by siglongjmp from its own handler never returns
// through the interposer; the samples taken after the jump tell the exit path that the
// thread no longer sleeps, so no stale 300 ms "sleep" is written under it.
TEST(SampleRun, WallClockForgetsASleepLeftByLongjmp) {
  const SampledRun run =
      sample("left-by-longjmp", "--clock wall -f 200", kPrograms + "/asleep_at_exit longjmp");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("left nanosleep by longjmp"), std::string::npos) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  const auto& p = run.processes[0];
  EXPECT_GT(p.total_time_ns("spin_after_the_jump", format::SampleClock::wall), 200'000'000u);
  // The jump came 50 ms into the call; a stale sample would be ~350 ms on the interposer.
  EXPECT_LT(p.total_time_ns("nanosleep", format::SampleClock::wall), 150'000'000u);
}

TEST(SampleRun, SoftwareCountersAreAttributedToSamples) {
  const SampledRun run = sample("counters", "-f 1000 -e page-faults,context-switches",
                         kPrograms + "/memory_toucher");
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  const auto& p = run.processes[0];
  ASSERT_GE(p.events.size(), 2u);
  EXPECT_EQ(p.events[0].status, format::EventStatus::ok);
  uint64_t faults_in_toucher = 0;
  for (const auto& s : p.samples) {
    ASSERT_EQ(s.counter_deltas.size(), 2u);
    for (const auto& f : s.functions) {
      if (f == "touch_pages") {
        faults_in_toucher += s.counter_deltas[0];
        break;
      }
    }
  }
  EXPECT_GT(faults_in_toucher, 10000u);  // 40 x 16 MiB of fresh pages
}

TEST(SampleRun, MissingHardwareEventIsNamedAndTheRunGoesOn) {
  const SampledRun run = sample("no-pmu", "-e cycles,page-faults", kPrograms + "/exec_target");
  EXPECT_EQ(run.status, 7) << run.output;
  ASSERT_EQ(run.processes.size(), 1u);
  std::string plain;
  run_command("perf stat -e cycles true", plain);
  if (plain.find("not supported") == std::string::npos) {
    GTEST_SKIP() << "this machine has a PMU; nothing to check";
  }
  EXPECT_NE(run.output.find("event 'cycles' not counted"), std::string::npos) << run.output;
  // The results say so too, with the reason, for the report.
  const auto& events = run.processes[0].events;
  const auto cycles = std::find_if(events.rbegin(), events.rend(),
                                   [](const auto& e) { return e.name == "cycles"; });
  ASSERT_NE(cycles, events.rend());
  EXPECT_EQ(cycles->status, format::EventStatus::unavailable);
  EXPECT_NE(cycles->detail.find("perf_event_open"), std::string::npos) << cycles->detail;
  EXPECT_GT(run.processes[0].total_samples("target_work"), 50u);
}

// The number before `word` in the launcher's summary line ("... 1157 samples from 7
// threads in 4 processes ..."), or -1.
long summary_count(const std::string& output, const std::string& word) {
  const size_t line = output.find("sample-run: ");
  for (size_t at = output.find(" " + word, line); at != std::string::npos;
       at = output.find(" " + word, at + 1)) {
    size_t start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(output[start - 1]))) --start;
    if (start < at) return std::stol(output.substr(start, at - start));
  }
  return -1;
}

uint64_t samples_in(const SampledRun& run) {
  uint64_t n = 0;
  for (const auto& p : run.processes) n += p.samples.size();
  return n;
}

// Children that outlive the program: the summary waits (bounded) for them to finish
// writing, so it counts what the results hold once they are done.
TEST(SampleRunSummary, CountsWhatChildrenThatOutliveTheProgramWrote) {
#if defined(__SANITIZE_ADDRESS__)
  // The fork inherits ASan's allocator lock held by the parent's writer thread (see
  // ChildrenForkedWhileTablesAreParsedEnd): a child then hangs in its writer's first
  // allocation (1 run in 3 under ASan; glibc's malloc is fork-safe).
  GTEST_SKIP() << "ASan's allocator lock is not fork-safe in this toolchain";
#endif
  const SampledRun run = sample("orphans", "-f 1000", kPrograms + "/orphans 2 300");
  EXPECT_EQ(run.status, 4) << run.output;
  ASSERT_EQ(run.processes.size(), 3u) << run.output;
  size_t orphans = 0;
  for (const auto& p : run.processes) orphans += p.total_samples("orphan_work") > 100;
  EXPECT_EQ(orphans, 2u) << run.output;
  EXPECT_EQ(summary_count(run.output, "samples"), static_cast<long>(samples_in(run))) << run.output;
  EXPECT_EQ(summary_count(run.output, "processes"), 3) << run.output;
  EXPECT_EQ(run.output.find("still running"), std::string::npos) << run.output;
}

// A child that goes on long after the program (a daemon) does not hold the launcher up:
// it exits with the program's status after a short wait and says what it did not count.
TEST(SampleRunSummary, ChildThatStaysDoesNotHoldTheLauncher) {
  const auto start = std::chrono::steady_clock::now();
  const SampledRun run = sample("daemon", "-f 1000", kPrograms + "/orphans 1 20000");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("child ", 0) == 0) ::kill(std::stoi(line.substr(6)), SIGKILL);
  }
  EXPECT_EQ(run.status, 4) << run.output;
  EXPECT_LT(seconds, 8.0) << run.output;
  EXPECT_NE(run.output.find("sample-run: 1 process was still running when this summary was made"),
            std::string::npos)
      << run.output;
}

// A child that has not made its results file yet when the program ends (a loaded machine
// may not run it for a while after the fork; here a preloaded shim holds its file up by a
// second) is still the run's: the summary waits for it and counts what it wrote. It did
// not: the launcher knew the run's processes by their files only, summed up at once and
// missed the child (CI, once in some hundred runs, as `ChildThatStaysDoesNotHoldTheLauncher`).
TEST(SampleRunSummary, WaitsForAChildWhoseFileComesLate) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan's allocator lock is not fork-safe in this toolchain";
#endif
  const std::string dir = fresh_directory("late-child");
  std::string output;
  const int status =
      run_command("LD_PRELOAD=" + kPrograms + "/libslow_child_results.so " + kSampleRun + " -o " +
                      dir + " -f 1000 -- " + kPrograms + "/orphans 1 0",
                  output);
  const auto processes = load_results(dir);
  EXPECT_EQ(status, 4) << output;
  ASSERT_EQ(processes.size(), 2u) << output;
  uint64_t samples = 0;
  for (const auto& p : processes) samples += p.samples.size();
  EXPECT_EQ(summary_count(output, "processes"), 2) << output;
  EXPECT_EQ(summary_count(output, "samples"), static_cast<long>(samples)) << output;
  EXPECT_EQ(output.find("still running"), std::string::npos) << output;
}

// A process that execs another image writes a file per image, and causal-report shows a
// process per file: the summary counts them the same way (the shell that execs a shell
// keeps its pid and its executable).
TEST(SampleRunSummary, CountsProcessesAsTheReportDoes) {
  const SampledRun run = sample("exec-same", "-f 1000", "/bin/sh -c 'exec /bin/sh -c :'");
  EXPECT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 2u) << run.output;
  EXPECT_EQ(summary_count(run.output, "processes"), 2) << run.output;
}

// Regressions: -e counted user level only, so context-switches (which happen in the
// kernel) read 0 in every run; and an event named twice was counted twice. Where the
// kernel refuses kernel level (perf_event_paranoid >= 2, made so here by a preloaded
// shim), events fall back to user level and say so, and context-switches, which would
// read 0 there, is flagged with the reason.
TEST(SampleRun, ContextSwitchesAreCountedOrFlaggedAndEachEventOnce) {
  const std::string options = "-f 1000 -e context-switches,page-faults";
  const std::string program = kPrograms + "/ping_pong";
  const SampledRun run = sample("kernel-level", options, program);
  ASSERT_EQ(run.status, 0) << run.output;
  ASSERT_EQ(run.processes.size(), 1u) << run.output;
  uint64_t switches = 0;
  for (const auto& s : run.processes[0].samples) {
    ASSERT_EQ(s.counter_deltas.size(), 2u);
    switches += s.counter_deltas[0];
  }
  EXPECT_GT(switches, 1000u) << run.output;  // 2 x 5000 hand-overs through pipes
  for (const auto& e : run.processes[0].events) {
    EXPECT_EQ(e.status, format::EventStatus::ok) << e.name << ": " << e.detail;
  }

  std::string out;
  const std::string dir = fresh_directory("user-level");
  ASSERT_EQ(run_command("LD_PRELOAD=" + kPrograms + "/librefuse_kernel_level.so " + kSampleRun +
                            " -o " + dir + " " + options + " -- " + program,
                        out),
            0)
      << out;
  EXPECT_NE(out.find("event 'context-switches' not counted: user only: "), std::string::npos)
      << out;
  EXPECT_NE(out.find("event 'page-faults' counted user only: "), std::string::npos) << out;
  const auto processes = load_results(dir);
  ASSERT_EQ(processes.size(), 1u) << out;
  bool switches_flagged = false;
  bool faults_user_only = false;
  for (const auto& e : processes[0].events) {
    switches_flagged |= e.name == "context-switches" &&
                        e.status == format::EventStatus::unavailable &&
                        e.detail.rfind("user only: ", 0) == 0;
    faults_user_only |= e.name == "page-faults" && e.status == format::EventStatus::ok &&
                        e.canonical_name.ends_with(":u") && e.detail.rfind("user only: ", 0) == 0;
  }
  EXPECT_TRUE(switches_flagged) << out;
  EXPECT_TRUE(faults_user_only) << out;

  const SampledRun twice = sample("twice", "-e page-faults,context-switches,faults", program);
  EXPECT_EQ(twice.status, 1) << twice.output;
  EXPECT_EQ(twice.output,
            "sample-run: -e: 'page-faults' and 'faults' are the same event "
            "(perf::PERF_COUNT_SW_PAGE_FAULTS); name it once\n");
  EXPECT_TRUE(twice.processes.empty());
}

}  // namespace
}  // namespace cprof::testing
