#pragma once
// Everything accounted: the CPU time each process recorded (its usage: the metric
// records' cumulative user + system time, the thread_end records' CPU times) against
// what its CPU-clock samples stand for. A process or thread shorter than a sampling
// period has no sample at all (3000 `basename` runs of 0.6 ms under xargs: 2.1 s of
// CPU time that a profile of samples alone never shows), so the report adds up what
// no sample covers, names it (grouped by executable) and says what share of the
// recorded CPU time the samples cover (docs/report.md, "Sampling coverage").

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "report/load/process_profile.h"

namespace cprof::report {

// Processes without a sample whose CPU time is each under this much (or two sampling
// periods, when that is more) are called short: they rightly have no sample.
inline constexpr uint64_t kShortProcessCpuNs = 10'000'000;

struct ProcessCpu {
  bool accounted = false;    // sampled on the CPU clock with its usage recorded
  uint64_t recorded_ns = 0;  // its own CPU time (less an earlier image's of the same pid)
  uint64_t sampled_ns = 0;   // its CPU-clock samples' weight plus dropped samples × period
  uint64_t unsampled_ns() const { return recorded_ns > sampled_ns ? recorded_ns - sampled_ns : 0; }
};

// Processes without a CPU-clock sample, one group per executable (file name).
struct UnsampledProcesses {
  std::string executable;
  bool short_processes = true;  // each used under kShortProcessCpuNs (or two periods)
  uint64_t cpu_time_ns = 0;
  std::vector<size_t> members;  // indices into the processes, most CPU time first
};

// The ended threads without a CPU-clock sample of one process that has samples.
struct UnsampledThreads {
  size_t process = 0;
  uint64_t threads = 0;
  uint64_t cpu_time_ns = 0;
};

struct CpuAccount {
  std::vector<ProcessCpu> processes;  // parallel to the processes
  uint64_t recorded_ns = 0;           // over the accounted processes
  uint64_t sampled_ns = 0;
  uint64_t unsampled_ns = 0;                            // sum of the processes' unsampled_ns()
  std::vector<UnsampledProcesses> unsampled_processes;  // most CPU time first
  std::vector<UnsampledThreads> unsampled_threads;      // most CPU time first
  uint64_t unsampled_process_ns() const;                // in processes without a sample
  uint64_t unsampled_thread_ns() const;  // threads without a sample of sampled processes
  // The rest no sample covers in sampled processes: the start before the runtime, the
  // last part of a period of each thread, threads still running at the end.
  uint64_t unsampled_other_ns() const;
  // What share of the recorded CPU time the samples cover (at most 1; 1 with none recorded).
  double coverage() const;
  bool any() const { return recorded_ns > 0; }
};

// Per process, then over all of them. An image that exec replaced kept the pid, and its
// CPU time counts on in the next image's usage: files of one host and pid, one starting
// within a second of the other's last record, are one chain, each image owning what its
// usage grew by.
CpuAccount account_cpu_time(const std::vector<ProcessProfile>& processes);

}  // namespace cprof::report
