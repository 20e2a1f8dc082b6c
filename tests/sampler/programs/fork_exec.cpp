// parent_work in the parent; the forked child runs child_work, then execs the program
// given as argv[1] (exec_target), which runs target_work. argv[2], when given, says how:
// "clearenv" empties the environment first, as `env -i` does; "syscall" execs through
// syscall(SYS_execve) and "fexecve" through fexecve, which libc makes past execve.
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

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
    const char* how = argc > 2 ? argv[2] : "execl";
    char* const args[] = {argv[1], nullptr};
    if (std::strcmp(how, "clearenv") == 0) clearenv();
    if (std::strcmp(how, "syscall") == 0) {
      syscall(SYS_execve, argv[1], args, environ);
    } else if (std::strcmp(how, "fexecve") == 0) {
      fexecve(open(argv[1], O_RDONLY | O_CLOEXEC), args, environ);
    } else {
      execl(argv[1], argv[1], static_cast<char*>(nullptr));
    }
    _exit(127);
  }
  parent_work();
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("child exited %d\n", WEXITSTATUS(status));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
