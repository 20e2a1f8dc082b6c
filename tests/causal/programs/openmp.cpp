// OpenMP rounds (libgomp waits and wakes with inline futex system calls, which only
// Syscall User Dispatch catches): per round a parallel for over two iterations on two
// threads, iteration 0 twice the work of iteration 1, then libgomp's barrier; a progress
// point per round. Its output and exit status must be the same under causal-run.
//   openmp ROUNDS [MODE]
// MODE:
//   (none)             exit status 3
//   sigsys             installs its own SIGSYS handler and blocks every signal first;
//                      then raises SIGSYS once (unblocked): its handler must run
//   fork               a forked child runs rounds too (exit(7), reported by the parent)
//   exec               execs itself (mode "child", exit 5) through execv
//   exec-unprofiled    the same through the raw execve system call, LD_PRELOAD removed:
//                      the new image runs without the runtime (nothing inherited)
//   child              rounds, exit 5
//   constructs         every waiting construct the runtime marks (barrier, critical,
//                      single copyprivate, worksharing loops and sections, tasks with
//                      taskwait, combined parallel loops and sections, omp locks plain,
//                      nestable and tried, ordered): a checksum that must come out the
//                      same under causal-run, exit 0
//   locks              per round, in a parallel region of two threads: an omp lock, a
//                      nestable lock taken twice, an ordered loop of 4 (libgomp's
//                      omp_set_lock, omp_set_nest_lock and GOMP_ordered_start waits), and
//                      nothing else that waits but the region's own join; a checksum, exit 0
// Built twice: with GCC (libgomp, causal_openmp) and with clang (LLVM's libomp,
// causal_openmp_llvm).
#include <omp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "causal/progress.h"

namespace {

__attribute__((noinline)) uint64_t work(uint64_t n) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) {
    x += i * i;
    asm volatile("" : "+r"(x));
  }
  return x;
}

uint64_t rounds(long n) {
  constexpr uint64_t kUnit = 100000;
  uint64_t total = 0;
  for (long r = 0; r < n; ++r) {
#pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : total)
    for (int i = 0; i < 2; ++i) {
      total += work(i == 0 ? 2 * kUnit : kUnit);  // LINE_HOT
    }
    CAUSAL_PROGRESS;
  }
  return total;
}

// Locks and ordered sections only (besides each region's join): 1 + 2 lock waits per
// thread and 4 ordered waits per round.
uint64_t locks(long n) {
  omp_lock_t lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  uint64_t sum = 0;
  for (long r = 0; r < n; ++r) {
    // Apart, so that the result does not depend on how the parts interleave, and one
    // variable per lock: the two locks do not exclude each other (with one variable for
    // both, a thread under the nest lock raced one under the plain lock, and a lost
    // update changed the checksum about once in a hundred runs).
    uint64_t locked = 0, nested = 0, ordered = static_cast<uint64_t>(r);
#pragma omp parallel num_threads(2)
    {
      omp_set_lock(&lock);
      locked += work(50);
      omp_unset_lock(&lock);
      omp_set_nest_lock(&nest);
      omp_set_nest_lock(&nest);
      nested += 1;
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
      // nowait: the loop's end is not a barrier, so only the ordered sections wait here.
#pragma omp for ordered schedule(static, 1) nowait
      for (int i = 0; i < 4; ++i) {
        const uint64_t v = work(20 + i);
#pragma omp ordered
        ordered = ordered * 3 + v;
      }
    }
    sum += locked + nested + ordered;
  }
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  return sum;
}

// Every interposed GOMP_* entry point, with a result that depends on each of them.
uint64_t constructs(long n) {
  uint64_t sum = 0;
  omp_lock_t lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  for (long r = 0; r < n; ++r) {
    uint64_t round = 0;
    uint64_t nested = 0;
    uint64_t failed_tries = 0;
#pragma omp parallel num_threads(2)
    {
      uint64_t mine = 0;
#pragma omp for schedule(dynamic, 1)
      for (int i = 0; i < 8; ++i) mine += work(1000 + i);
#pragma omp barrier
#pragma omp critical
      round += mine;
      uint64_t shared = 0;
#pragma omp single copyprivate(shared)
      shared = work(500);
#pragma omp sections
      {
#pragma omp section
        mine = work(300);
#pragma omp section
        mine = work(400);
      }
#pragma omp single
      {
        uint64_t a = 0, b = 0;
#pragma omp task shared(a)
        a = work(200);
#pragma omp task shared(b)
        b = work(250);
#pragma omp taskwait
#pragma omp atomic
        round += a + b + shared;
      }
      // Locks (after the single's barrier): plain, nestable taken twice, a try-lock loop.
      omp_set_lock(&lock);
      round += work(50);
      omp_unset_lock(&lock);
      omp_set_nest_lock(&nest);
      omp_set_nest_lock(&nest);
      nested += 1;  // not `round`: another thread may hold `lock` meanwhile
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
      while (omp_test_lock(&lock) == 0) {
      }
      round += 2;
      omp_unset_lock(&lock);
#pragma omp barrier
      // A try that fails every round: thread 0 holds the lock while thread 1 tries it.
      if (omp_get_thread_num() == 0) omp_set_lock(&lock);
#pragma omp barrier
      if (omp_get_thread_num() == 1) failed_tries += omp_test_lock(&lock) == 0 ? 1 : 1000;
#pragma omp barrier
      if (omp_get_thread_num() == 0) omp_unset_lock(&lock);
      // An ordered loop: the result depends on the order of its ordered sections.
#pragma omp for ordered schedule(static, 1)
      for (int i = 0; i < 4; ++i) {
        const uint64_t v = work(20 + i);
#pragma omp ordered
        round = round * 3 + v;
      }
    }
    uint64_t loop = 0;
#pragma omp parallel for num_threads(2) schedule(dynamic, 2) reduction(+ : loop)
    for (int i = 0; i < 8; ++i) loop += work(100 + i);
    uint64_t s1 = 0, s2 = 0;
#pragma omp parallel sections num_threads(2)
    {
#pragma omp section
      s1 = work(150);
#pragma omp section
      s2 = work(160);
    }
    sum += round + nested + failed_tries + loop + s1 + s2;
  }
  omp_destroy_nest_lock(&nest);
  omp_destroy_lock(&lock);
  return sum;
}

volatile sig_atomic_t g_sigsys = 0;
void on_sigsys(int, siginfo_t* info, void*) { g_sigsys = g_sigsys + (info->si_code == SI_TKILL ? 1 : 100); }

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000;
  const char* mode = argc > 2 ? argv[2] : "";
  if (std::strcmp(mode, "sigsys") == 0) {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, nullptr) != 0) return 10;
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, nullptr);
    std::printf("rounds=%ld total=%llu\n", n, static_cast<unsigned long long>(rounds(n)));
    struct sigaction now {};
    sigaction(SIGSYS, nullptr, &now);
    sigset_t sys;
    sigemptyset(&sys);
    sigaddset(&sys, SIGSYS);
    sigprocmask(SIG_UNBLOCK, &sys, nullptr);
    raise(SIGSYS);
    std::printf("own SIGSYS handler ran: %d, still installed: %s\n", static_cast<int>(g_sigsys),
                now.sa_sigaction == on_sigsys ? "yes" : "no");
    return 0;
  }
  if (std::strcmp(mode, "locks") == 0) {
    std::printf("locks rounds=%ld sum=%llu\n", n, static_cast<unsigned long long>(locks(n)));
    return 0;
  }
  if (std::strcmp(mode, "constructs") == 0) {
    std::printf("constructs rounds=%ld sum=%llu\n", n,
                static_cast<unsigned long long>(constructs(n)));
    return 0;
  }
  if (std::strcmp(mode, "fork") == 0) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      std::printf("child rounds=%ld total=%llu\n", n, static_cast<unsigned long long>(rounds(n)));
      std::exit(7);  // the runtime's exit path runs in the child too
    }
    const uint64_t total = rounds(n);
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("parent rounds=%ld total=%llu child exit %d\n", n,
                static_cast<unsigned long long>(total), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
  }
  if (std::strcmp(mode, "exec") == 0 || std::strcmp(mode, "exec-unprofiled") == 0) {
    std::printf("before exec total=%llu\n", static_cast<unsigned long long>(rounds(n / 4)));
    std::fflush(stdout);
    char* args[] = {argv[0], argv[1], const_cast<char*>("child"), nullptr};
    if (std::strcmp(mode, "exec") == 0) {
      execv("/proc/self/exe", args);
    } else {
      std::vector<char*> env;
      for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env.push_back(*e);
      }
      env.push_back(nullptr);
      // The raw system call skips the runtime's exec preparation, so a sampling signal
      // may be pending: blocked, it stays pending in the new image instead of killing it.
      // Blocked with the raw system call too: libc's sigprocmask never blocks the
      // sampling signal in a sampled thread (docs/sampler.md, "Signal masks").
      sigset_t all;
      sigfillset(&all);
      syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, nullptr, _NSIG / 8);
      syscall(SYS_execve, "/proc/self/exe", args, env.data());
    }
    return 20;
  }
  std::printf("rounds=%ld total=%llu\n", n, static_cast<unsigned long long>(rounds(n)));
  return std::strcmp(mode, "child") == 0 ? 5 : 3;
}
