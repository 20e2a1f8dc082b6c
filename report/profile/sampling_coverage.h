#pragma once
// Whether each thread's samples account for the CPU time it used. Every CPU-clock sample
// stands for the CPU time since the thread's previous one, so a thread's samples add up
// to about its CPU time (thread_end record). A thread far short of that ran unsampled:
// the sampling signal was blocked in it (a raw rt_sigprocmask, a thread created or
// adopted with the signal masked), its timer never fired, or its samples were lost
// uncounted. The profile says nothing of that time, so the report must say that it is
// missing (docs/report.md, "Sampling coverage").

#include <cstdint>
#include <vector>

#include "report/load/process_profile.h"

namespace cprof::report {

// What a thread's samples may leave out before it is checked: the CPU time the process
// spent before the runtime started (the main thread's: loading, the runtime's own start,
// an earlier image that exec replaced), and this much per context switch of the process.
// The perf_event task clock runs behind the thread's CPU clock around switches: on the
// 2-core VMs by about 2 us per switch, so two threads that only hand a turn to each other
// (pipe or condition variable, 100-5000 Hz) have samples for 56-73% of their CPU time.
inline constexpr uint64_t kCoverageSwitchCostNs = 5'000;
// A thread is checked alone when, less the above, it used at least this much CPU time
// and this many sampling periods: a shorter one may rightly have no sample at all.
inline constexpr uint64_t kCoverageMinCpuNs = 50'000'000;
inline constexpr uint64_t kCoverageMinPeriods = 20;
// Flagged when its samples (dropped ones counted) cover less than this share of it.
inline constexpr double kCoverageMinFraction = 0.5;
// Threads too short to check alone are checked as one group, each allowed this much
// unsampled time (what a thread's last period or a timer's scheduler tick can leave out),
// or two periods when that is more.
inline constexpr uint64_t kCoverageShortThreadAllowanceNs = 10'000'000;

struct UnsampledThread {
  uint32_t thread = 0;       // index into ProcessProfile::threads
  uint64_t cpu_time_ns = 0;  // its CPU time (thread_end record)
  uint64_t sampled_ns = 0;   // what its CPU-clock samples and dropped samples stand for
  double coverage() const;   // sampled_ns / cpu_time_ns, at most 1
};

// The ended threads under the per-thread threshold, taken together.
struct ShortThreads {
  uint64_t threads = 0;
  uint64_t cpu_time_ns = 0;
  uint64_t sampled_ns = 0;
  double coverage() const;
};

struct SamplingCoverage {
  std::vector<UnsampledThread> threads;  // flagged threads, most unsampled time first
  ShortThreads short_threads;            // all zero unless flagged as a group
  uint64_t unsampled_cpu_ns = 0;         // CPU time of the flagged that samples leave out
  uint64_t min_thread_cpu_ns = 0;        // threads under it are the short ones; 0: not checked

  bool flagged() const { return !threads.empty() || short_threads.threads > 0; }
  // Over everything flagged: threads (a group counts its threads), CPU time, sampled time.
  uint64_t flagged_threads() const;
  uint64_t flagged_cpu_ns() const;
  double coverage() const;
};

// Checks the threads that ended (their CPU time is known). Nothing is flagged for a GPU
// hooks' file or a process not sampled on the CPU clock.
SamplingCoverage check_sampling_coverage(const ProcessProfile& p);

}  // namespace cprof::report
