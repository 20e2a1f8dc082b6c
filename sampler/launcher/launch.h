#pragma once
// What every launcher (sample-run, causal-run) does around the profiled program: find
// and check it, prepare the results directory and the preload environment, run it with
// SIGINT/SIGTERM forwarded, and hand back its exit status unchanged.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cprof::launch {

// Resolves PROGRAM like execvp does (a name without '/' is searched in PATH) and checks
// that preloading can work: it exists, is executable, and is not a static binary.
// Returns "" and sets `resolved`, or one line saying what is wrong.
std::string check_program(const std::string& program, std::string& resolved);

// The interpreter line of a script: "/bin/sh" for a file that starts with "#!/bin/sh",
// "" for anything else (an ELF file, or a file the kernel does not run as a script).
std::string script_interpreter(const std::string& path);

// Creates DIR (and parents) and checks it is writable. Returns "" or one line.
std::string prepare_results_dir(const std::string& dir, std::string& absolute);

// The runtime library that sits in ../lib next to this executable's bin/ folder.
// Returns "" and the path, or one line saying it is missing.
std::string find_runtime_library(const std::string& file_name, std::string& path);

// The LD_PRELOAD value that adds `library` to the caller's own LD_PRELOAD (kept first).
// In a sanitizer build the sanitizer's runtime must come before the instrumented runtime
// library, so it is put in front.
std::string preload_value(const std::string& library);

// Environment settings for the child: LD_PRELOAD (appended to any existing value) and
// the tool's own variables.
struct ChildEnvironment {
  std::vector<std::pair<std::string, std::string>> set;
};

// Runs argv[0] (already resolved) with env applied, forwarding SIGINT, SIGTERM, SIGHUP
// and SIGQUIT to it, and waits. Returns the exit code to exit with: the program's own,
// or 128+N for a signal (after which the caller should call reraise_child_signal). When
// the program cannot be started (fork or exec fails), one line prefixed with `tool` says
// why, and the exit code is 126 (not runnable) or 127 (not found, no process).
struct ChildResult {
  int exit_code = 0;
  int term_signal = 0;  // non-zero when the child was killed by a signal
  bool core_dumped = false;
  uint64_t cpu_ns = 0;  // user + system CPU time of the child and the descendants it waited for
};
ChildResult run_child(const std::vector<std::string>& argv, const ChildEnvironment& env,
                      const char* tool);

// The last of SIGINT, SIGTERM, SIGHUP and SIGQUIT this launcher received since run_child
// first set up their forwarding, or 0. A program may catch the signal and end normally: a
// launcher that runs it several times must not take that for a run that ended by itself
// and go on to the next (^C once stops causal-run -n 36).
int signal_received();

// Ends this process the way the child ended: same exit code, or the same signal
// (so a shell sees "Killed" or "Segmentation fault" exactly as without the profiler).
[[noreturn]] void exit_like(const ChildResult& result);

}  // namespace cprof::launch
