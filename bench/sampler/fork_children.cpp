// The fork-only workload of startup.sh (WORKLOAD=fork): forks N children one after
// another, each of which exits at once (through exit(), so atexit handlers and the
// profiler's exit path run; with `_exit`, through _exit(), as Python's multiprocessing
// workers end, where the profiler's interposed _exit() does that write), and waits for
// each. No exec: what a profiler adds here is its after-fork work in the child (a new
// results file, the thread re-armed, a writer thread) and its exit, not its start in a
// new program.
//
//   cprof-bench-fork-children N [_exit]
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 100;
  const bool underscore_exit = argc > 2 && std::strcmp(argv[2], "_exit") == 0;
  for (long i = 0; i < n; ++i) {
    const pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      return 1;
    }
    if (child == 0) {
      if (underscore_exit) _exit(0);
      std::exit(0);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "child %d did not exit cleanly\n", static_cast<int>(child));
      return 1;
    }
  }
  return 0;
}
