// End-to-end: causal-run on an OpenMP program (tests/causal/programs/openmp.cpp). libgomp
// waits and wakes with inline futex system calls, caught by Syscall User Dispatch
// (causal/runtime/syscall_dispatch.h): the runtime must see them (its end-of-run message
// counts them), record no "not interposed" warning, and leave the program's output and
// exit status as they are, with its own SIGSYS handler, blocked signals, fork and exec.

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <regex>
#include <string>
#include <utility>

#include "tests/support/results_loader.h"

namespace {

using cprof::testing::fresh_directory;
using cprof::testing::load_results;
using cprof::testing::run_command;

const std::string kRun = CAUSAL_RUN;
const std::string kProgram = std::string(CAUSAL_PROGRAMS) + "/causal_openmp";
// The same program built by clang against LLVM's libomp (waits marked through OMPT).
const std::string kProgramLlvm = std::string(CAUSAL_PROGRAMS) + "/causal_openmp_llvm";
// Passive waits: libgomp sleeps in the kernel at once instead of spinning first, so the
// futex waits are there to be seen on any machine.
const std::string kEnv = "CPROF_CAUSAL_DURATION_MS=100 OMP_WAIT_POLICY=passive ";
const std::string kRounds = "3000";

int hot_line() {
  std::ifstream in(std::string(CAUSAL_SOURCES) + "/openmp.cpp");
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.find("// LINE_HOT") != std::string::npos) return n;
  }
  return 0;
}

// The program's own lines of a file of its stdout (causal-run's summary goes there too).
std::string program_output(const std::string& path) {
  std::ifstream in(path);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("causal-run: ", 0) != 0) out += line + "\n";
  }
  return out;
}

struct OmpRun {
  int status = 0;
  std::string out;     // the program's stdout
  std::string output;  // everything else (causal-run's lines, errors)
  std::string dir;
};

OmpRun plain(const std::string& name, const std::string& args,
             const std::string& program = kProgram) {
  OmpRun r;
  r.dir = fresh_directory("openmp-plain-" + name);
  r.status = run_command(kEnv + program + " " + args + " > " + r.dir + "/stdout", r.output);
  r.out = program_output(r.dir + "/stdout");
  return r;
}

OmpRun profiled(const std::string& name, const std::string& args, const std::string& env = "",
                const std::string& program = kProgram) {
  OmpRun r;
  r.dir = fresh_directory("openmp-" + name);
  const std::string line = "openmp.cpp:" + std::to_string(hot_line());
  r.status = run_command(kEnv + env + " " + kRun + " -o " + r.dir + " --line " + line +
                             " --fixed-speedup 50 --seed 2 -- " + program + " " + args + " > " +
                             r.dir + ".stdout",
                         r.output);
  r.out = program_output(r.dir + ".stdout");
  return r;
}

// Every message of every process of the run, one a line.
std::string messages(const std::string& dir) {
  std::string all;
  for (const auto& p : load_results(dir)) {
    for (const auto& m : p.messages) all += m.text + "\n";
  }
  return all;
}

// The sum of "futex waits intercepted: N" over the processes of the run.
uint64_t intercepted_waits(const std::string& text) {
  const std::string key = "futex waits intercepted: ";
  uint64_t total = 0;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    total += std::stoull(text.substr(at + key.size()));
  }
  return total;
}

// "OpenMP waits seen: N (M samples spinning ...)": {N, M}, or {0, 0} when absent.
std::pair<uint64_t, uint64_t> openmp_waits(const std::string& text) {
  const std::string key = "OpenMP waits seen: ";
  const size_t at = text.find(key);
  if (at == std::string::npos) return {0, 0};
  const size_t open = text.find('(', at);
  return {std::stoull(text.substr(at + key.size())), std::stoull(text.substr(open + 1))};
}

#define SKIP_WITHOUT_OPENMP() \
  if (!CAUSAL_HAVE_OPENMP) GTEST_SKIP() << "no OpenMP compiler support"
#define SKIP_WITHOUT_LIBOMP() \
  if (!CAUSAL_HAVE_LIBOMP) GTEST_SKIP() << "clang++ cannot build against libomp (libomp-dev)"

TEST(CausalRunOpenMP, LibgompFutexWaitsAreTrappedAndTheProgramRunsUnchanged) {
  SKIP_WITHOUT_OPENMP();
  const OmpRun p = plain("unchanged", kRounds);
  const OmpRun r = profiled("unchanged", kRounds);
  EXPECT_EQ(p.status, 3) << p.output;
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_EQ(r.out, p.out);
  const std::string m = messages(r.dir);
  EXPECT_EQ(m.find("not interposed"), std::string::npos) << m;
  EXPECT_NE(m.find("Syscall User Dispatch, inclusive mode on "), std::string::npos) << m;
  EXPECT_NE(m.find("libgomp.so"), std::string::npos) << m;
  EXPECT_GT(intercepted_waits(m), 0u) << m;
}

// The fallback for kernels before 6.16: every system call from outside libc traps.
TEST(CausalRunOpenMP, ExclusiveModeWorksToo) {
  SKIP_WITHOUT_OPENMP();
  const OmpRun p = plain("exclusive", kRounds);
  const OmpRun r = profiled("exclusive", kRounds, "CPROF_CAUSAL_DISPATCH=exclusive");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_EQ(r.out, p.out);
  const std::string m = messages(r.dir);
  EXPECT_EQ(m.find("not interposed"), std::string::npos) << m;
  EXPECT_NE(m.find("exclusive mode (libc allowed)"), std::string::npos) << m;
  EXPECT_GT(intercepted_waits(m), 0u) << m;
}

// Where dispatch is unavailable (here: turned off) one warning says so.
TEST(CausalRunOpenMP, WithoutDispatchOneWarningSaysWaitsAreNotInterposed) {
  SKIP_WITHOUT_OPENMP();
  const OmpRun r = profiled("off", "500", "CPROF_CAUSAL_DISPATCH=off");
  EXPECT_EQ(r.status, 3) << r.output;
  const std::string m = messages(r.dir);
  const std::string warning = "OpenMP (libgomp) futex waits are not interposed";
  ASSERT_NE(m.find(warning), std::string::npos) << m;
  EXPECT_EQ(m.find(warning, m.find(warning) + 1), std::string::npos) << m;
}

// A program with its own SIGSYS handler that blocks every signal: its handler still runs
// for its own SIGSYS, sigaction still reports it, and the traps go on (SIGSYS stays
// unblocked in trapping threads).
TEST(CausalRunOpenMP, OwnSigsysHandlerAndBlockedSignals) {
  SKIP_WITHOUT_OPENMP();
  const OmpRun p = plain("sigsys", kRounds + " sigsys");
  const OmpRun r = profiled("sigsys", kRounds + " sigsys");
  EXPECT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(p.out.find("own SIGSYS handler ran: 1, still installed: yes"), std::string::npos) << p.out;
  EXPECT_EQ(r.out, p.out);
  const std::string m = messages(r.dir);
  EXPECT_GT(intercepted_waits(m), 0u) << m;
}

TEST(CausalRunOpenMP, ForkedChildTrapsToo) {
  SKIP_WITHOUT_OPENMP();
#if defined(__SANITIZE_ADDRESS__)
  // The fork lands while the parent's runtime threads allocate: under ASan the child may
  // inherit the allocator's quarantine lock held and hang in its first allocation (gdb, 1
  // run in 3: the child's writer, controller and libgomp threads spinning on it), which is
  // not what this test looks for (see CausalRun.ChildrenForkedWhileRegionsAreTimedEnd).
  GTEST_SKIP() << "ASan's allocator lock is not fork-safe in this toolchain";
#endif
  const OmpRun p = plain("fork", kRounds + " fork");
  const OmpRun r = profiled("fork", kRounds + " fork");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(p.out.find("child exit 7"), std::string::npos) << p.out;
  EXPECT_EQ(r.out, p.out);
  const auto processes = load_results(r.dir);
  ASSERT_EQ(processes.size(), 2u);
  for (const auto& proc : processes) {
    std::string m;
    for (const auto& msg : proc.messages) m += msg.text + "\n";
    EXPECT_NE(m.find("futex waits intercepted: "), std::string::npos) << proc.file << "\n" << m;
    EXPECT_EQ(m.find("not interposed"), std::string::npos) << m;
  }
}

// Nothing survives exec: the new image starts its own runtime (execv, profiled) or runs
// without one (the raw system call with LD_PRELOAD removed) and must not die of a stale
// dispatch range or selector.
TEST(CausalRunOpenMP, ExecedImagesRunWithAndWithoutTheRuntime) {
  SKIP_WITHOUT_OPENMP();
  for (const std::string mode : {"exec", "exec-unprofiled"}) {
    const OmpRun p = plain(mode, kRounds + " " + mode);
    const OmpRun r = profiled(mode, kRounds + " " + mode, "CPROF_CAUSAL_DISPATCH_TRAP=always");
    EXPECT_EQ(p.status, 5) << p.output;
    EXPECT_EQ(r.status, 5) << mode << "\n" << r.output;
    EXPECT_EQ(r.out, p.out) << mode;
    // The first image's count is lost with it (exec); the profiled new image counts.
    if (mode == "exec") {
      EXPECT_GT(intercepted_waits(messages(r.dir)), 0u) << mode;
    }
  }
}

// libgomp arrives by dlopen, and the thread that uses it existed before: the runtime
// turns dispatch on when the library appears and asks that thread by signal.
TEST(CausalRunOpenMP, LibgompLoadedByDlopen) {
  SKIP_WITHOUT_OPENMP();
  const std::string programs = CAUSAL_PROGRAMS;
  const std::string args = programs + "/causal_openmp_plugin.so " + kRounds;
  std::string plain_output;
  ASSERT_EQ(run_command(kEnv + programs + "/causal_openmp_dlopen " + args, plain_output), 0)
      << plain_output;
  // The selector stays BLOCK (no experiment needs to be running): what is tested is
  // that the trap reaches the threads.
  OmpRun r;
  r.dir = fresh_directory("openmp-dlopen-run");
  r.status = run_command(kEnv + "CPROF_CAUSAL_DISPATCH_TRAP=always " + kRun + " -o " + r.dir +
                             " --function main -- " + programs + "/causal_openmp_dlopen " + args +
                             " > " + r.dir + ".stdout",
                         r.output);
  r.out = program_output(r.dir + ".stdout");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.out, plain_output);
  const std::string m = messages(r.dir);
  EXPECT_EQ(m.find("not interposed"), std::string::npos) << m;
  EXPECT_NE(m.find("inclusive mode on "), std::string::npos) << m;
  EXPECT_GT(intercepted_waits(m), 0u) << m;
  // The plugin's libgomp is not in the global scope (RTLD_LOCAL): the interposed GOMP_*
  // calls still find it and mark the waits.
  EXPECT_GE(openmp_waits(m).first, 2 * std::stoull(kRounds)) << m;
}

// The parent turns dispatch on for 200 waiting threads, under the dispatch refresh lock,
// while another thread forks children whose own dlopen takes that lock: none may hang.
TEST(CausalRunOpenMP, ChildrenForkedWhileDispatchIsTurnedOnEnd) {
  SKIP_WITHOUT_OPENMP();
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's ASan allocator takes no lock across fork (glibc's malloc does): a child
  // inherits its spin lock held by one of the 200 threads about a third of the runs,
  // and hangs in its first malloc (seen: the child's own runtime threads in
  // __asan::Allocator::Allocate). Not the lock this test is about.
  GTEST_SKIP() << "ASan's allocator lock is not fork-safe in this toolchain";
#endif
  const std::string programs = CAUSAL_PROGRAMS;
  const std::string dir = fresh_directory("openmp-dispatch-fork");
  std::string output;
  const int status = run_command(kEnv + kRun + " -o " + dir + " --function main -- " +
                                     programs + "/causal_dispatch_fork " + programs +
                                     "/causal_openmp_plugin.so 200",
                                 output);
  ASSERT_EQ(status, 0) << output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(output, m, std::regex("(^|\n)0 of ([0-9]+) children hung")))
      << output;
  EXPECT_GE(std::stoi(m[2].str()), 5) << output;
  const std::string messages_text = messages(dir);
  EXPECT_NE(messages_text.find("inclusive mode on "), std::string::npos) << messages_text;
}

// Runs `program` spinning (the environment `spin`) with and without the marks: each round
// the master waits at the join and the worker from the join to its next region, the
// spinning samples are set aside, not paid for, and turned off (to compare) nothing is
// marked. The output is the plain run's throughout.
void expect_spinning_waits_marked(const std::string& name, const std::string& spin,
                                  const std::string& program) {
  const std::string rounds = "1000";
  const OmpRun p = plain(name, rounds, program);
  const OmpRun r = profiled(name, rounds, spin, program);
  EXPECT_EQ(p.status, 3) << p.output;
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_EQ(r.out, p.out);
  const std::string m = messages(r.dir);
  const auto [waits, samples] = openmp_waits(m);
  EXPECT_GE(waits, 2 * std::stoull(rounds)) << m;
  EXPECT_GT(samples, 0u) << m;
  EXPECT_EQ(m.find("not marked"), std::string::npos) << m;
  const OmpRun off =
      profiled(name + "-off", rounds, spin + " CPROF_CAUSAL_OPENMP_WAITS=off", program);
  EXPECT_EQ(off.status, 3) << off.output;
  EXPECT_EQ(off.out, p.out);
  EXPECT_EQ(openmp_waits(messages(off.dir)).first, 0u) << messages(off.dir);
}

// `program ROUNDS MODE` (a mode that prints "MODE rounds=ROUNDS sum=...") plain and under
// causal-run: the same output and exit status 0 both ways. Returns the waits the profiled
// run counted (with its messages, for a failure's log).
std::pair<uint64_t, std::string> waits_of_faithful_run(const std::string& name, long rounds,
                                                       const std::string& mode,
                                                       const std::string& program) {
  const std::string args = std::to_string(rounds) + " " + mode;
  const OmpRun p = plain(name, args, program);
  const OmpRun r = profiled(name, args, "", program);
  EXPECT_EQ(p.status, 0) << p.output;
  EXPECT_NE(p.out.find(mode + " rounds=" + std::to_string(rounds) + " sum="), std::string::npos)
      << p.out;
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.out, p.out);
  const std::string m = messages(r.dir);
  return {openmp_waits(m).first, m};
}

// The `constructs` mode under `program`: the same checksum as the plain run, and per
// round and thread at least the loop end, the barrier, the critical section, the single
// copy, the sections end, the single's barrier and the joins of three regions marked.
void expect_constructs_forward_faithfully(const std::string& name, const std::string& program) {
  const auto [waits, messages] = waits_of_faithful_run(name, 300, "constructs", program);
  EXPECT_GE(waits, 300u * 2 * 8) << messages;
}

// libgomp spins before it sleeps: with a long spin (active policy, bounded so that a
// loaded machine still makes progress) the waiting thread is sampled inside libgomp. The
// interposed GOMP_* calls mark every wait.
TEST(CausalRunOpenMP, SpinningWaitsAreMarkedAndTheirSamplesSetAside) {
  SKIP_WITHOUT_OPENMP();
  expect_spinning_waits_marked("spin", "OMP_WAIT_POLICY=active GOMP_SPINCOUNT=2000000", kProgram);
}

// Every interposed construct (barrier, critical, single copyprivate, worksharing loop and
// sections ends, tasks and taskwait, combined parallel sections, omp locks plain and
// nestable, the try-locks, which are not waits, and ordered) forwards faithfully.
TEST(CausalRunOpenMP, EveryWaitingConstructForwardsFaithfully) {
  SKIP_WITHOUT_OPENMP();
  expect_constructs_forward_faithfully("constructs", kProgram);
}

// Locks and ordered sections are waits under both runtimes: libgomp's through the
// interposed omp_set_lock, omp_set_nest_lock and GOMP_ordered_start, libomp's through
// OMPT (where the interposed lock functions only forward). Per round and thread: the
// region's join, 1 + 2 lock waits and the thread's 2 ordered sections, so exactly 12 per
// round: 2 if the locks and ordered sections went unmarked, 18 if libomp's were marked
// twice. The output stays the program's.
void expect_locks_and_ordered_are_waits(const std::string& name, const std::string& program) {
  const auto [waits, messages] = waits_of_faithful_run(name, 200, "locks", program);
  EXPECT_EQ(waits, 200u * 12) << messages;
}

TEST(CausalRunOpenMP, LibgompLocksAndOrderedSectionsAreWaits) {
  SKIP_WITHOUT_OPENMP();
  expect_locks_and_ordered_are_waits("locks", kProgram);
}

TEST(CausalRunOpenMP, LibompLocksAndOrderedSectionsAreWaitsOnce) {
  SKIP_WITHOUT_LIBOMP();
  expect_locks_and_ordered_are_waits("libomp-locks", kProgramLlvm);
}

// LLVM's libomp (the program built by clang) reports its waits through OMPT, which the
// runtime registers for. Its threads spin for KMP_BLOCKTIME (200 ms by default) before
// they sleep, so the waiting thread is sampled inside libomp: set aside, as with libgomp.
TEST(CausalRunOpenMP, LibompWaitsAreMarkedThroughOmpt) {
  SKIP_WITHOUT_LIBOMP();
  expect_spinning_waits_marked("libomp", "OMP_WAIT_POLICY=active KMP_BLOCKTIME=200", kProgramLlvm);
}

// Every construct under libomp too: barriers, critical, single, loops, sections, tasks,
// locks plain, nestable and tried (one try fails each round), ordered: each a pair of OMPT
// events the runtime must close, or the waits after an unclosed one would go uncounted.
TEST(CausalRunOpenMP, LibompConstructsForwardFaithfully) {
  SKIP_WITHOUT_LIBOMP();
  expect_constructs_forward_faithfully("libomp-constructs", kProgramLlvm);
}

// OMPT has one tool per runtime: another tool keeps its place under causal-run. `program`
// runs profiled with `env`; the output is the plain run's, no wait is marked, and the
// end-of-run message says why ("OpenMP waits not marked: <why>"). Returns the plain run.
OmpRun expect_tool_keeps_its_place(const std::string& name, const std::string& env,
                                   const std::string& program, const std::string& why) {
  OmpRun p = plain(name, "300", program);
  const OmpRun r = profiled(name, "300", env, program);
  EXPECT_EQ(p.status, 3) << p.output;
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_EQ(r.out, p.out);
  const std::string m = messages(r.dir);
  EXPECT_EQ(openmp_waits(m).first, 0u) << m;
  EXPECT_NE(m.find("OpenMP waits not marked: " + why), std::string::npos) << m;
  return p;
}

// The program's own tool (linked in as a library, found after the runtime's definition)
// is the one libomp starts, in plain and profiled runs alike.
TEST(CausalRunOpenMP, TheProgramsOwnOmptToolKeepsItsPlace) {
  SKIP_WITHOUT_LIBOMP();
  const OmpRun p = expect_tool_keeps_its_place(
      "libomp-own-tool", "", std::string(CAUSAL_PROGRAMS) + "/causal_openmp_llvm_tool",
      "the program has its own OMPT tool");
  EXPECT_NE(p.out.find("own OMPT tool initialized"), std::string::npos) << p.out;
}

// A tool the user names in OMP_TOOL_LIBRARIES (here one that does not exist: libomp tries
// it and runs without a tool).
TEST(CausalRunOpenMP, AToolNamedInOmpToolLibrariesKeepsItsPlace) {
  SKIP_WITHOUT_LIBOMP();
  expect_tool_keeps_its_place("libomp-tool", "OMP_TOOL_LIBRARIES=/nonexistent/tool.so",
                              kProgramLlvm, "OMP_TOOL_LIBRARIES names another OMPT tool");
}

TEST(CausalRuntime, ExportsOnlyTheFunctionsItInterposes) {
  std::string out;
  ASSERT_EQ(run_command(std::string("nm -D --defined-only ") + CAUSAL_RUNTIME_LIBRARY, out), 0);
  std::set<std::string> exported;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > 19 && line[17] != 'U') exported.insert(line.substr(19));
  }
  const std::set<std::string> expected{
      "pthread_create", "dlopen", "dlclose", "execve", "execv", "execvp", "execvpe", "execl",
      "execlp", "execle", "fexecve", "execveat", "pthread_mutex_lock", "pthread_mutex_trylock",
      "pthread_mutex_timedlock", "pthread_mutex_unlock", "pthread_cond_wait",
      "pthread_cond_timedwait", "pthread_cond_clockwait", "pthread_cond_signal",
      "pthread_cond_broadcast", "pthread_join", "pthread_timedjoin_np", "pthread_barrier_wait",
      "pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_rwlock_timedrdlock",
      "pthread_rwlock_timedwrlock", "pthread_rwlock_unlock", "pthread_spin_lock",
      "pthread_spin_unlock", "pthread_kill", "sem_wait", "sem_timedwait", "sem_clockwait",
      "sem_post", "sigwait", "sigwaitinfo", "sigtimedwait", "nanosleep", "clock_nanosleep",
      "usleep", "sleep", "read", "poll", "ppoll", "select", "pselect", "epoll_wait", "epoll_pwait",
      "syscall", "sigaction", "signal", "sigprocmask", "pthread_sigmask", "_coz_get_counter",
      "cprof_progress_api_v1", "cprof_device_wait_api_v1", "cprof_peer_wait_api_v1", "close",
      "close_range", "closefrom", "dup2", "dup3", "cprof_owned_fds_v1", "_exit", "_Exit",
      "pthread_setname_np",
      // libgomp's entry points that wait (openmp_interpose.cpp)
      "GOMP_parallel", "GOMP_parallel_reductions", "GOMP_parallel_sections",
      "GOMP_parallel_loop_static", "GOMP_parallel_loop_dynamic", "GOMP_parallel_loop_guided",
      "GOMP_parallel_loop_nonmonotonic_dynamic", "GOMP_parallel_loop_nonmonotonic_guided",
      "GOMP_parallel_loop_runtime", "GOMP_parallel_loop_nonmonotonic_runtime",
      "GOMP_parallel_loop_maybe_nonmonotonic_runtime", "GOMP_barrier", "GOMP_barrier_cancel",
      "GOMP_loop_end", "GOMP_loop_end_cancel", "GOMP_sections_end", "GOMP_sections_end_cancel",
      "GOMP_single_copy_start", "GOMP_single_copy_end", "GOMP_taskwait", "GOMP_taskgroup_end",
      "GOMP_critical_start", "GOMP_critical_end", "GOMP_critical_name_start",
      "GOMP_critical_name_end", "GOMP_atomic_start", "GOMP_atomic_end", "GOMP_ordered_start",
      "GOMP_ordered_end", "omp_set_lock", "omp_unset_lock", "omp_set_nest_lock",
      "omp_unset_nest_lock",
      // libomp's tool interface and the try-locks (ompt_tool.cpp)
      "ompt_start_tool", "omp_test_lock", "omp_test_nest_lock"};
  EXPECT_EQ(exported, expected) << out;
}

}  // namespace
