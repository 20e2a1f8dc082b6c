// parent_work in the parent; the forked child runs child_work, then execs the program
// given as argv[1] (exec_target), which runs target_work.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "spin.h"

extern "C" {
__attribute__((noinline)) void parent_work() { SPIN_FOR_MS(200); }
__attribute__((noinline)) void child_work() { SPIN_FOR_MS(200); }
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const pid_t pid = fork();
  if (pid == 0) {
    child_work();
    execl(argv[1], argv[1], static_cast<char*>(nullptr));
    _exit(127);
  }
  parent_work();
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("child exited %d\n", WEXITSTATUS(status));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
