#pragma once
// For the GPU test programs: children of a traced program that exit like any program
// (exit(), so the tool's inherited exit handler runs) must not wait for the tool's
// threads, which only the parent has. Forks N children one after the other, each living
// 30 ms, and prints "children: N ended, H hung" (a child still running after 5 s is
// killed and counted as hung).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

inline void fork_children(int n) {
  int ended = 0;
  int hung = 0;
  std::fflush(stdout);
  for (int i = 0; i < n; ++i) {
    const pid_t child = fork();
    if (child < 0) break;
    if (child == 0) {
      usleep(30000);
      std::exit(0);
    }
    int status = 0;
    pid_t r = 0;
    for (int waited_ms = 0; waited_ms < 5000 && (r = waitpid(child, &status, WNOHANG)) == 0;
         waited_ms += 5) {
      usleep(5000);
    }
    if (r == child) {
      ++ended;
    } else {
      ++hung;
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
    }
  }
  std::printf("children: %d ended, %d hung\n", ended, hung);
}
