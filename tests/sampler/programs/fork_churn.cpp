// A chain of N processes, each forked by the one before it as soon as that one starts (as
// a shell's subshells do): every fork lands while the forking process's runtime is still
// starting its own threads. Each process works a little and returns from main, so the
// runtime's exit path runs in each. A child that does not end in time is reported and
// killed, and the chain fails: a lock or condition variable copied mid-use from a runtime
// thread of the parent would hang it at exit.
//   fork_churn [N]
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "spin.h"

extern "C" __attribute__((noinline)) void churn_work() { SPIN_FOR_MS(1); }

namespace {

// waitpid with a deadline: the child's status, or -1 if it is still running after it.
// Asleep until SIGCHLD (blocked in main before the first fork, so none is lost): a chain
// of parents that polled every millisecond kept both CPUs of a small machine busy and
// starved the one process that had work to do, for seconds.
int wait_for(pid_t pid, int seconds) {
  const time_t deadline = time(nullptr) + seconds;
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    const time_t now = time(nullptr);
    if (r < 0 || now > deadline) return -1;
    const timespec left{deadline - now + 1, 0};
    sigtimedwait(&chld, nullptr, &left);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);  // inherited by every process of the chain
  int depth = 0;
  pid_t child = -1;
  while (depth < n) {
    child = fork();
    if (child < 0) return 2;
    if (child != 0) break;
    ++depth;  // the child forks the next one at once
  }
  churn_work();
  if (depth == n) return 0;
  // Every level below has its own deadline; this one allows for theirs.
  const int status = wait_for(child, 10 + (n - depth) / 10);
  if (status == -1) {
    std::printf("process %d of the chain hung\n", depth + 1);
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    return 1;
  }
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (depth == 0) std::printf("%d processes, %s\n", n + 1, ok ? "all ended" : "one hung");
  return ok ? 0 : 1;
}
