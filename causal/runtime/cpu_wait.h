#pragma once
// How long the program's threads waited for a CPU during the experiments. A virtual
// speedup is counted in CPU time (samples of CPU time owe delays) while progress is timed
// on the wall clock: when the threads wait in the run queue (other jobs, or more busy
// threads than CPUs), the wall time grows and the virtual speedups do not, so the
// predictions shrink (Coz's too). The kernel's per-thread scheduler statistics
// (/proc/self/task/TID/schedstat: time run, time waited on a run queue) measure it; the
// runtime sums them over the experiments' measured windows and warns when the waits were
// a large share.
//
// Normal context only (the controller thread, exiting threads, exit).

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace cprof::causal {

struct CpuTimes {
  uint64_t run_ns = 0;   // on a CPU
  uint64_t wait_ns = 0;  // runnable, waiting on a run queue
};

// Per thread of this process; nullopt where the kernel keeps no schedstat
// (CONFIG_SCHED_INFO off) or /proc cannot be read.
std::optional<std::map<pid_t, CpuTimes>> read_thread_cpu_times();
// The calling thread's.
std::optional<CpuTimes> read_own_cpu_times();

// The run and wait times of this process's threads over the measured windows (an
// experiment's, or a whole end-to-end run): a thread there at both ends counts its
// difference, a thread born in between all of its times, and a thread that ends in between
// what thread_ended() was given.
//
// A reading opens and reads one file per thread (about 4 ms at 1,000 threads), so windows
// are measured only while the readings cost at most kMaxReadingShare of the wall time:
// after a window's two readings took C, the next window measured starts C / share later.
// The warning is about a share, which a sample of windows estimates as well; with short
// experiments (tens of ms) and many threads it is a sample, with few threads every window.
class CpuWaitTally {
 public:
  static constexpr double kMaxReadingShare = 0.01;
  using Clock = uint64_t (*)();  // nanoseconds, monotonic

  explicit CpuWaitTally(Clock clock = monotonic_ns) : clock_(clock) {}

  void begin();  // at a window's start; no reading while the last ones' cost says wait
  void end();    // when it is over; a window without both readings is not counted
  // On a thread that is ending (`times`: its own, read_own_cpu_times()); counted in the
  // open window, if any.
  void thread_ended(pid_t tid, const CpuTimes& times);
  bool window_open() const;

  // Around fork: the child gets the lock free (fork_release); forget() then drops the
  // parent's window and totals.
  void fork_prepare() { mutex_.lock(); }
  void fork_release() { mutex_.unlock(); }
  void forget();

  uint64_t run_ns() const;
  uint64_t wait_ns() const;

 private:
  void add_locked(const CpuTimes& times, const CpuTimes& base);

  static uint64_t monotonic_ns();

  Clock clock_;
  mutable std::mutex mutex_;  // begin/end on the controller, thread_ended on any thread
  std::optional<std::map<pid_t, CpuTimes>> start_;
  uint64_t begin_cost_ns_ = 0;    // the open window's first reading
  uint64_t next_reading_ns_ = 0;  // no window is measured before this
  std::set<pid_t> ended_;  // threads that thread_ended() counted in this window
  uint64_t run_ns_ = 0;
  uint64_t wait_ns_ = 0;
};

// "" with nothing measured, or when the waits were less than `warn_share` of the ready
// time (run + wait); else the warning, with the share.
std::string cpu_wait_warning(uint64_t run_ns, uint64_t wait_ns, double warn_share);

}  // namespace cprof::causal
