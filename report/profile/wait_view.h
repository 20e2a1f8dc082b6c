#pragma once
// Where threads waited (`causal-report --by wait`): for the processes sampled on both
// clocks (`sample-run --clock wall`), the time off CPU of each call the program made into
// a library, by that call and the program's code that made it. Off CPU is the wall-clock
// time of the stacks in the call less their CPU time: both clocks sample the same threads
// side by side, so the difference is the time the thread was blocked, asleep or waiting
// for a CPU there, whatever the call (a lock, a condition variable, I/O, a sleep, a join),
// with no list of blocking calls to keep.
//
// The call is found from the stack's innermost frame outwards: the run of frames in the
// library the thread stopped in (libc's futex wait ... pthread_cond_wait), continued
// through the libraries that called it (libstdc++'s condition_variable::wait) up to the
// program's own code, whose frame is the caller. A thread a library started and that never
// enters the program's code (a worker of liblzma) keeps the run of the innermost library:
// where it waits in libc, the call is libc's and the caller liblzma's; where the whole
// stack is liblzma's but for the frames that started the thread, it is liblzma's own code.
// A stack whose innermost frame is the program's own code is off CPU there for want of a
// CPU (more runnable threads than cores) or for a page fault.

#include <cstdint>
#include <string>
#include <vector>

#include "report/load/process_profile.h"
#include "report/profile/flat_profile.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct WaitRow {
  // The library function the program called, or for own code, the function running.
  FunctionId call = 0;
  // The stack's innermost frame is the program's own code (or, in a thread a library
  // started, that library's).
  bool own_code = false;
  // The frame that made the call: the nearest of the program's own code outwards, or the
  // next frame when the stack has none. has_caller false: the call is the outermost frame.
  bool has_caller = false;
  FunctionId caller = 0;
  LineId caller_line = 0;
  Measure wall;  // wall-clock samples with this (call, caller)
  size_t threads = 0;  // the threads those samples are of
  Measure cpu;   // CPU-clock samples with it
  // Wall less CPU: negative where the CPU samples came out ahead by chance.
  int64_t off_cpu_ns() const {
    return static_cast<int64_t>(wall.time_ns) - static_cast<int64_t>(cpu.time_ns);
  }
  // 95% half-width of off_cpu_ns from the two sample counts (a count of n samples of
  // period p is uncertain by about p·sqrt(n) on either clock).
  uint64_t half_width_ns = 0;
  // Shown: its off-CPU time is told apart from zero (off_cpu_ns() > half_width_ns) and is
  // at least kWaitMinShare of all the time off CPU. The second keeps out the rows of a few
  // samples that clear the first by chance: a run has hundreds of (call, caller) pairs.
  bool stands_out = false;
};
inline constexpr double kWaitMinShare = 0.01;

struct WaitView {
  size_t processes = 0;  // processes sampled on both clocks: the view's scope
  size_t threads = 0;    // their threads with samples
  Measure wall;          // their wall-clock samples
  Measure cpu;           // their CPU-clock samples
  uint64_t off_cpu_ns() const {
    return wall.time_ns > cpu.time_ns ? wall.time_ns - cpu.time_ns : 0;
  }
  // The rows that stand out first, by off-CPU time; then the others, by off-CPU time.
  std::vector<WaitRow> rows;
  size_t rows_standing_out() const;
};

// The call as a program names it: glibc's internal names for its functions
// ("__GI___libc_read", "__pthread_mutex_lock", "__poll") become the public ones ("read",
// "pthread_mutex_lock", "poll"), a symbol version ("@@GLIBC_2.3.2") is dropped, and a
// row of the program's own code is "(its own code)".
std::string wait_call_name(const SymbolTable& table, const WaitRow& row);

WaitView build_wait_view(const std::vector<ProcessProfile>& processes,
                         const SymbolizedProfiles& symbols);

}  // namespace cprof::report
