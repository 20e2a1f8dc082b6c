// Runs a command and appends its cost to a file, for the benchmark scripts:
//   cprof-bench-time FILE -- PROGRAM [ARGS...]
// FILE gets one line: "wall_s=W user_s=U sys_s=S cpu_s=U+S maxrss_kb=M status=X", where
// user/sys/maxrss come from wait4() and so cover the command and every descendant it
// waited for (sample-run and its program; perf record and its program). The command's
// stdout and stderr pass through. Exits with the command's status.

#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--") != 0) {
    std::fprintf(stderr, "usage: %s FILE -- PROGRAM [ARGS...]\n", argv[0]);
    return 1;
  }
  timespec t0{};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    return 1;
  }
  if (pid == 0) {
    execvp(argv[3], argv + 3);
    std::fprintf(stderr, "%s: cannot run %s: %s\n", argv[0], argv[3], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      std::perror("wait4");
      return 1;
    }
  }
  timespec t1{};
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double wall = static_cast<double>(t1.tv_sec - t0.tv_sec) +
                      static_cast<double>(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  const double user = static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec * 1e-6;
  const double sys = static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec * 1e-6;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  FILE* out = std::fopen(argv[1], "a");
  if (out == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  std::fprintf(out, "wall_s=%.6f user_s=%.6f sys_s=%.6f cpu_s=%.6f maxrss_kb=%ld status=%d\n", wall,
               user, sys, user + sys, ru.ru_maxrss, code);
  std::fclose(out);
  return code;
}
