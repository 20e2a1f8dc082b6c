#pragma once
// Runs a tool (causal-report) as a child with its standard output discarded, and what it
// cost: wall and CPU seconds, peak RSS (wait4's rusage), exit status. For the report
// benchmarks.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace cprof::bench {

struct Timed {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system: what the run would take without other load
  long peak_rss_kb = 0;
  int status = -1;
};

inline Timed run_report(const std::vector<std::string>& args) {
  const auto begin = std::chrono::steady_clock::now();
  std::fflush(stdout);  // else the child inherits and repeats what is buffered
  const pid_t child = ::fork();
  if (child == 0) {
    if (!freopen("/dev/null", "w", stdout)) _exit(127);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  Timed t;
  struct rusage usage {};
  int status = 0;
  ::wait4(child, &status, 0, &usage);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  t.peak_rss_kb = usage.ru_maxrss;
  t.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  t.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return t;
}

}  // namespace cprof::bench
