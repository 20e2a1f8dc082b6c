// sample-run --pid / --tid on programs that already run: threads made before and while
// attached, one that ends, a fork, the split of a launched run, three attaches in a row,
// the target's output and exit status untouched, and the errors a user meets.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/support/results_loader.h"

extern char** environ;

namespace cprof::testing {
namespace {

const std::string kSampleRun = SAMPLE_RUN;
const std::string kTarget = std::string(TEST_PROGRAMS) + "/attach_target";

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A process started in the background with its stdout and stderr in a file.
struct Background {
  pid_t pid = -1;
  std::string log;

  Background(const std::vector<std::string>& argv, const std::string& log_path) : log(log_path) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Background() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  // Waits (bounded) until the log holds `text`.
  bool wait_for(const std::string& text,
                std::chrono::seconds limit = std::chrono::seconds(20)) const {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      if (file_text(log).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }
  // Its exit status (bounded wait; -1 if it did not end).
  int wait(std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (std::chrono::steady_clock::now() < end) {
      const pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return -1;
  }
};

// sample-run OPTIONS (which bound it with -d) attached to the target started with `args`
// once it has run for a moment; waits for both.
struct TimedAttach {
  int sampler_status = -1;
  int target_status = -1;
  std::string out;  // sample-run's
  std::vector<LoadedProcess> processes;
};
TimedAttach attach_while_running(const std::string& dir, const std::vector<std::string>& args,
                                 const std::string& options) {
  TimedAttach r;
  std::vector<std::string> argv = {kTarget};
  argv.insert(argv.end(), args.begin(), args.end());
  Background target(argv, dir + "/target.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  r.sampler_status = run_command(kSampleRun + " " + options + " -o " + dir + "/r --pid " +
                                     std::to_string(target.pid) + " 2>&1",
                                 r.out);
  r.target_status = target.wait();
  r.processes = load_results(dir + "/r");
  return r;
}

// The target's own run without any sampler: the output and status to compare with.
std::pair<int, std::string> plain_run(const std::string& dir, const std::string& option) {
  const std::string go = dir + "/go-plain";
  std::ofstream(go).put('x');
  std::string out;
  const int status = run_command(kTarget + " " + go + " " + option + " 2>&1", out);
  return {status, out};
}

const format::ThreadRecord* thread_running(const LoadedProcess& p, const std::string& function) {
  for (const auto& s : p.samples) {
    for (const auto& f : s.functions) {
      if (f.find(function) == std::string::npos) continue;
      for (const auto& t : p.threads) {
        if (t.tid == s.tid) return &t;
      }
    }
  }
  return nullptr;
}

// Attaches to the target started with `option`, lets it go once attached, and waits for
// both. Returns the sampler's output; `status`/`target_output` are the target's.
struct AttachedRun {
  int target_status = -1;
  int sampler_status = -1;
  std::string target_output;
  std::string sampler_output;
  std::vector<LoadedProcess> processes;
};

// `program`: the target's file (a copy may be deleted meanwhile: `after_start` runs once
// it is ready).
AttachedRun attach_to_target(const std::string& dir, const std::string& options,
                             const std::string& program = kTarget,
                             const std::function<void()>& after_start = {}) {
  AttachedRun r;
  const std::string go = dir + "/go";
  std::vector<std::string> argv = {program, go};
  std::istringstream words(options);
  for (std::string w; words >> w;) argv.push_back(w);
  Background target(argv, dir + "/target.log");
  EXPECT_TRUE(target.wait_for("ready")) << file_text(target.log);
  if (after_start) after_start();
  Background sampler(
      {kSampleRun, "-f", "1000", "-o", dir + "/results", "--pid", std::to_string(target.pid)},
      dir + "/sampler.log");
  EXPECT_TRUE(sampler.wait_for("attached to")) << file_text(sampler.log);
  std::ofstream(go).put('x');
  r.target_status = target.wait();
  r.sampler_status = sampler.wait();
  r.target_output = file_text(target.log);
  r.sampler_output = file_text(sampler.log);
  if (program == kTarget) r.processes = load_results(dir + "/results");
  return r;
}

TEST(AttachRun, ThreadsFromBeforeAndWhileAttachedAreSampledUntilTheProcessEnds) {
  const std::string dir = fresh_directory("attach-threads");
  const auto plain = plain_run(dir, "");
  ASSERT_EQ(plain.first, 7) << plain.second;
  const auto r = attach_to_target(dir, "");
  // The program is as it is unsampled: its output and exit status.
  EXPECT_EQ(r.target_status, 7) << r.target_output;
  EXPECT_EQ(r.target_output, plain.second);
  // sample-run ends with the process, and says so.
  EXPECT_EQ(r.sampler_status, 0) << r.sampler_output;
  EXPECT_NE(r.sampler_output.find("the sampled processes ended"), std::string::npos)
      << r.sampler_output;
  ASSERT_EQ(r.processes.size(), 1u) << r.sampler_output;
  const auto& p = r.processes[0];
  EXPECT_EQ(p.process.executable, kTarget);
  EXPECT_EQ(p.process.unwinder, "libdw");
  EXPECT_TRUE(p.summary.issues.empty());
  // Found at the attach, and made while attached: each thread's own code, unwound to
  // its thread function through frames without frame pointers.
  const auto* early = thread_running(p, "early_work");
  const auto* brief = thread_running(p, "short_lived");
  const auto* late = thread_running(p, "late_work");
  ASSERT_NE(early, nullptr) << r.sampler_output;
  ASSERT_NE(brief, nullptr) << r.sampler_output;
  ASSERT_NE(late, nullptr) << r.sampler_output;
  EXPECT_TRUE(early->existed_before_start);
  EXPECT_TRUE(brief->existed_before_start);
  EXPECT_FALSE(late->existed_before_start);
  EXPECT_GT(p.total_samples("late_work"), 50u);
  EXPECT_GT(p.total_samples("spin"), 50u);
  // The stacks go past the leaf to the thread's function.
  size_t spin_under_late = 0;
  for (const auto& s : p.samples) {
    if (!s.functions.empty() && s.functions[0].find("spin") != std::string::npos &&
        s.functions.size() > 1 && s.functions[1].find("late_work") != std::string::npos) {
      ++spin_under_late;
    }
  }
  EXPECT_GT(spin_under_late, 30u);
  // The thread that ended has its end, with the CPU time it ran while attached.
  bool brief_ended = false;
  for (const auto& e : p.thread_ends) {
    if (e.tid == brief->tid) {
      brief_ended = true;
      EXPECT_GT(e.cpu_time_ns, 0u);
      EXPECT_GT(e.samples, 0u);
    }
  }
  EXPECT_TRUE(brief_ended);
}

TEST(AttachRun, AForkedChildGetsItsOwnFile) {
  const std::string dir = fresh_directory("attach-fork");
  const auto r = attach_to_target(dir, "--fork");
  EXPECT_EQ(r.target_status, 7) << r.target_output;
  EXPECT_NE(r.target_output.find("child exited"), std::string::npos) << r.target_output;
  ASSERT_EQ(r.processes.size(), 2u) << r.sampler_output;
  const LoadedProcess* child = nullptr;
  for (const auto& p : r.processes) {
    if (p.total_samples("child_work") > 0) child = &p;
  }
  ASSERT_NE(child, nullptr) << r.sampler_output;
  EXPECT_GT(child->total_samples("child_work"), 20u);
  EXPECT_EQ(child->total_samples("late_work"), 0u);
}

#ifdef CAUSAL_REPORT
// A program deleted, or replaced by another build, after it started: its code is named
// from the copy sample-run kept, read through /proc/PID/map_files.
TEST(AttachRun, AProgramDeletedOrReplacedSinceItStartedIsStillNamed) {
  for (const bool replace : {false, true}) {
    const std::string dir = fresh_directory(replace ? "attach-replaced" : "attach-deleted");
    const std::string copy = dir + "/target-copy";
    std::filesystem::copy_file(kTarget, copy);
    std::filesystem::permissions(copy, std::filesystem::perms::owner_all);
    const auto r = attach_to_target(dir, "", copy, [&] {
      std::filesystem::remove(copy);
      if (replace) std::filesystem::copy_file("/bin/true", copy);
    });
    EXPECT_EQ(r.target_status, 7) << r.target_output;
    EXPECT_EQ(r.sampler_status, 0) << r.sampler_output;
    std::string report;
    ASSERT_EQ(run_command(std::string(CAUSAL_REPORT) + " " + dir + "/results 2>&1", report), 0)
        << report;
    EXPECT_NE(report.find("late_work"), std::string::npos) << report;
    EXPECT_NE(report.find("attach_target.cpp:"), std::string::npos) << report;
  }
}
#endif

// A library loaded while attached: recorded when it loads, its code named.
TEST(AttachRun, ALibraryLoadedWhileAttachedIsNamed) {
  const std::string dir = fresh_directory("attach-dlopen");
  const auto r = attach_to_target(dir, std::string("--plugin ") + TEST_PLUGIN);
  EXPECT_EQ(r.target_status, 7) << r.target_output;
  ASSERT_EQ(r.processes.size(), 1u) << r.sampler_output;
  const auto& p = r.processes[0];
  EXPECT_GT(p.total_samples("plugin_work"), 50u) << r.sampler_output;
  bool recorded = false;
  for (const auto& m : p.modules) recorded |= m.path == TEST_PLUGIN;
  EXPECT_TRUE(recorded);
}

// Ctrl-C (SIGINT to sample-run) ends the sampling, not the program, and keeps it all.
TEST(AttachRun, InterruptStopsSamplingAndKeepsWhatWasTaken) {
  const std::string dir = fresh_directory("attach-interrupt");
  Background target({kTarget, "--split", "3"}, dir + "/target.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Background sampler({kSampleRun, "-o", dir + "/r", "--pid", std::to_string(target.pid)},
                     dir + "/sampler.log");
  ASSERT_TRUE(sampler.wait_for("attached to")) << file_text(sampler.log);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(sampler.pid, SIGINT);
  EXPECT_EQ(sampler.wait(std::chrono::seconds(10)), 0) << file_text(sampler.log);
  const auto processes = load_results(dir + "/r");
  ASSERT_EQ(processes.size(), 1u) << file_text(sampler.log);
  EXPECT_TRUE(processes[0].summary.issues.empty());
  EXPECT_GT(processes[0].samples.size(), 50u) << file_text(sampler.log);
  // The program goes on, and ends as it would have.
  EXPECT_EQ(target.wait(), 0);
  EXPECT_EQ(file_text(target.log), "split done\n");
}

// The share of heavy_part among the samples in heavy_part or light_part.
double heavy_share(const std::vector<LoadedProcess>& processes) {
  double heavy = 0;
  double light = 0;
  for (const auto& p : processes) {
    heavy += static_cast<double>(p.total_samples("heavy_part"));
    light += static_cast<double>(p.total_samples("light_part"));
  }
  return heavy + light == 0 ? -1 : 100.0 * heavy / (heavy + light);
}

TEST(AttachRun, TheSplitMatchesALaunchedRunWithinThreePoints) {
  const std::string dir = fresh_directory("attach-split");
  std::string out;
  // 2000 Hz for 2.5 s in two threads: ~10,000 samples each way when the machine is free,
  // a standard error of the share of ~0.4 points.
  ASSERT_EQ(run_command(kSampleRun + " -q -f 2000 -o " + dir + "/launched -- " + kTarget +
                            " --split 2.5 2>&1",
                        out),
            0)
      << out;
  const double launched = heavy_share(load_results(dir + "/launched"));
  const auto r = attach_while_running(dir, {"--split", "3.5"}, "-q -f 2000 -d 2.5");
  ASSERT_EQ(r.sampler_status, 0) << r.out;
  EXPECT_EQ(r.target_status, 0);
  const double attached = heavy_share(r.processes);
  // Three parts in four, by construction; both within 3 points of each other.
  EXPECT_GT(launched, 60) << out;
  EXPECT_NEAR(attached, launched, 3.0) << out;
}

TEST(AttachRun, ThreeAttachesInARowLeaveTheProgramAsItWas) {
  const std::string dir = fresh_directory("attach-thrice");
  Background target({kTarget, "--split", "3"}, dir + "/target.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (int i = 0; i < 3; ++i) {
    std::string out;
    ASSERT_EQ(run_command(kSampleRun + " -d 0.4 -o " + dir + "/r" + std::to_string(i) + " --pid " +
                              std::to_string(target.pid) + " 2>&1",
                          out),
              0)
        << out;
    const auto processes = load_results(dir + "/r" + std::to_string(i));
    ASSERT_EQ(processes.size(), 1u) << out;
    EXPECT_GT(processes[0].samples.size(), 50u) << out;
    // Detached: the process keeps no descriptor or mapping of ours.
    EXPECT_EQ(file_text("/proc/" + std::to_string(target.pid) + "/maps").find("perf_event"),
              std::string::npos);
  }
  EXPECT_EQ(target.wait(), 0);
  EXPECT_EQ(file_text(target.log), "split done\n");
}

TEST(AttachRun, OneThreadAlone) {
  const std::string dir = fresh_directory("attach-tid");
  Background target({kTarget, "--split", "2"}, dir + "/target.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::vector<std::string> tids;
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(target.pid) + "/task")) {
    tids.push_back(e.path().filename());
  }
  ASSERT_EQ(tids.size(), 3u);
  std::string worker;
  for (const auto& t : tids) {
    if (t != std::to_string(target.pid)) worker = t;
  }
  std::string out;
  ASSERT_EQ(run_command(kSampleRun + " -d 0.5 -o " + dir + "/r --tid " + worker + " 2>&1", out), 0)
      << out;
  const auto processes = load_results(dir + "/r");
  ASSERT_EQ(processes.size(), 1u) << out;
  EXPECT_GT(processes[0].samples.size(), 50u) << out;
  for (const auto& s : processes[0].samples) ASSERT_EQ(std::to_string(s.tid), worker);
  EXPECT_EQ(target.wait(), 0);
}

// --clock wall: every thread's wall time while attached, off-CPU time at the stack where
// the thread waited (the main thread in join), on-CPU time where it ran.
TEST(AttachRun, WallClockCountsTheTimeOffCpuWhereItWasSpent) {
  const auto r =
      attach_while_running(fresh_directory("attach-wall"), {"--split", "2"}, "--clock wall -d 0.6");
  const std::string& out = r.out;
  ASSERT_EQ(r.sampler_status, 0) << out;
  EXPECT_EQ(r.target_status, 0);
  ASSERT_EQ(r.processes.size(), 1u) << out;
  const auto& p = r.processes[0];
  EXPECT_EQ(p.process.clock, "cpu+wall");
  std::map<int64_t, uint64_t> wall_ns;
  for (const auto& s : p.samples) {
    if (s.clock == format::SampleClock::wall) wall_ns[s.tid] += s.weight_ns;
  }
  ASSERT_EQ(wall_ns.size(), 3u) << out;
  for (const auto& [tid, ns] : wall_ns) {
    EXPECT_GT(ns, 400'000'000u) << "thread " << tid << "\n" << out;
    EXPECT_LT(ns, 800'000'000u) << "thread " << tid << "\n" << out;
  }
  // The main thread spends its time in join: wall samples only, off CPU.
  EXPECT_GT(p.total_time_ns("join", format::SampleClock::wall), 400'000'000u) << out;
  EXPECT_LT(p.total_time_ns("join", format::SampleClock::cpu), 50'000'000u) << out;
  EXPECT_GT(p.total_time_ns("heavy_part", format::SampleClock::wall), 400'000'000u) << out;
}

// -e: counters read with every sample, their deltas on the samples of the code that
// caused them; one this machine does not have is recorded as such.
TEST(AttachRun, CountersComeWithTheSamples) {
  const auto r = attach_while_running(fresh_directory("attach-counters"), {"--faults", "2"},
                                      "-e page-faults,cycles -d 0.6");
  const std::string& out = r.out;
  ASSERT_EQ(r.sampler_status, 0) << out;
  EXPECT_EQ(r.target_status, 0);
  ASSERT_EQ(r.processes.size(), 1u) << out;
  const auto& p = r.processes[0];
  ASSERT_EQ(p.events.size(), 2u);
  EXPECT_EQ(p.events[0].status, format::EventStatus::ok);
  uint64_t faults_in_touch = 0;
  uint64_t samples_with_counters = 0;
  for (const auto& s : p.samples) {
    if (s.counter_deltas.size() != 2) continue;
    ++samples_with_counters;
    for (const auto& f : s.functions) {
      if (f.find("touch_pages") != std::string::npos) {
        faults_in_touch += s.counter_deltas[0];
        break;
      }
    }
  }
  EXPECT_GT(samples_with_counters, 50u) << out;
  // 4 MiB a round, one fault a page: thousands in 0.6 s.
  EXPECT_GT(faults_in_touch, 2000u) << out;
}

// Several processes at once, each in its own file.
TEST(AttachRun, SeveralProcessesAtOnce) {
  const std::string dir = fresh_directory("attach-two");
  Background a({kTarget, "--split", "2"}, dir + "/a.log");
  Background b({kTarget, "--split", "2"}, dir + "/b.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::string out;
  ASSERT_EQ(run_command(kSampleRun + " -d 0.5 -o " + dir + "/r --pid " + std::to_string(a.pid) +
                            "," + std::to_string(b.pid) + " 2>&1",
                        out),
            0)
      << out;
  const auto processes = load_results(dir + "/r");
  ASSERT_EQ(processes.size(), 2u) << out;
  std::set<int64_t> pids;
  for (const auto& p : processes) {
    pids.insert(p.process.pid);
    EXPECT_GT(p.total_samples("heavy_part"), 20u) << out;
  }
  EXPECT_EQ(pids, (std::set<int64_t>{a.pid, b.pid}));
  EXPECT_EQ(a.wait(), 0);
  EXPECT_EQ(b.wait(), 0);
}

// A process in a child PID namespace (a container's), named by its pid out here.
TEST(AttachRun, AProcessInAnotherPidNamespace) {
  std::string out;
  if (run_command("unshare --pid --fork --mount-proc true 2>&1", out) != 0) {
    GTEST_SKIP() << "no PID namespace can be made here: " << out;
  }
  const std::string dir = fresh_directory("attach-pidns");
  Background ns({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", kTarget, "--split", "3"},
                dir + "/target.log");
  // The program, once unshare's child has exec'd it: the one whose NSpid has two levels.
  pid_t inner = 0;
  for (int i = 0; i < 400 && inner == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      const std::string name = e.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      if (file_text(e.path() / "cmdline").find("--split") == std::string::npos) continue;
      const std::string status = file_text(e.path() / "status");
      if (std::regex_search(status, std::regex("NSpid:\\s+[0-9]+\\s+1\\n")) &&
          file_text(e.path() / "comm") == "attach_target\n") {
        inner = std::stoi(name);
      }
    }
  }
  ASSERT_NE(inner, 0) << file_text(dir + "/target.log");
  ASSERT_EQ(
      run_command(kSampleRun + " -d 0.5 -o " + dir + "/r --pid " + std::to_string(inner) + " 2>&1",
                  out),
      0)
      << out;
  const auto processes = load_results(dir + "/r");
  ASSERT_EQ(processes.size(), 1u) << out;
  EXPECT_EQ(processes[0].process.pid, inner);
  EXPECT_GT(processes[0].total_samples("heavy_part"), 50u) << out;
  EXPECT_EQ(ns.wait(), 0);
}

TEST(AttachRun, ErrorsSayWhatIsWrongAndWriteNothing) {
  const std::string dir = fresh_directory("attach-errors");
  std::string out;
  EXPECT_EQ(run_command(kSampleRun + " -o " + dir + "/r --pid 0 2>&1", out), 1) << out;
  EXPECT_NE(out.find("--pid 0: '0' is not a process id"), std::string::npos) << out;
  // Above the kernel's largest pid (pid_max is at most 2^22): never running.
  EXPECT_EQ(run_command(kSampleRun + " -o " + dir + "/r --pid 5000000 2>&1", out), 1) << out;
  EXPECT_NE(out.find("no process 5000000 is running"), std::string::npos) << out;
  EXPECT_EQ(run_command(kSampleRun + " -o " + dir + "/r --pid 12,x 2>&1", out), 1) << out;
  EXPECT_NE(out.find("'x' is not a process id"), std::string::npos) << out;
  EXPECT_EQ(run_command(kSampleRun + " -o " + dir + "/r --pid 1 -- /bin/true 2>&1", out), 1) << out;
  EXPECT_NE(out.find("not both"), std::string::npos) << out;
  EXPECT_EQ(run_command(kSampleRun + " -o " + dir + "/r --pid 1 --unwind fp 2>&1", out), 1) << out;
  EXPECT_NE(out.find("--unwind does not apply with --pid"), std::string::npos) << out;
  EXPECT_EQ(run_command(kSampleRun + " -o " + dir + "/r -d 2 -- /bin/true 2>&1", out), 1) << out;
  EXPECT_NE(out.find("-d applies with --pid/--tid only"), std::string::npos) << out;
  // A thread given as a process.
  Background target({kTarget, "--split", "1"}, dir + "/target.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(target.pid) + "/task")) {
    const std::string tid = e.path().filename();
    if (tid == std::to_string(target.pid)) continue;
    EXPECT_EQ(run_command(kSampleRun + " -o " + dir + "/r --pid " + tid + " 2>&1", out), 1) << out;
    EXPECT_NE(out.find(tid + " is a thread of process " + std::to_string(target.pid) +
                       ": name it with --tid"),
              std::string::npos)
        << out;
    break;
  }
  // Not permitted: another user's process, tried as nobody.
  if (getuid() == 0 && run_command("command -v setpriv >/dev/null", out) == 0) {
    EXPECT_EQ(
        run_command("setpriv --reuid=65534 --regid=65534 --clear-groups " + kSampleRun +
                        " -o /tmp/attach-nobody --pid " + std::to_string(target.pid) + " 2>&1",
                    out),
        1)
        << out;
    EXPECT_NE(out.find("not permitted to sample process " + std::to_string(target.pid)),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("it belongs to another user (uid 0)"), std::string::npos) << out;
  }
  EXPECT_EQ(target.wait(), 0);
  EXPECT_FALSE(std::filesystem::exists(dir + "/r"));
}

}  // namespace
}  // namespace cprof::testing
