#pragma once
// Where the time went by who ran it: per thread, per process and per rank, each with its
// samples, time and hottest function (by self time); and each process's metric records
// summarized (peak RSS, CPU utilization, faults, context switches). One pass over the
// (thread, stack) counts: cheap next to the flat profile.

#include <cstdint>
#include <string>
#include <vector>

#include "report/load/process_profile.h"
#include "report/profile/flat_profile.h"
#include "common/running_stats.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct ProcessMetrics {
  size_t records = 0;  // metric records read
  uint64_t peak_rss_bytes = 0;
  double cpu_utilization = -1;  // CPUs busy over the records' span; <0 unknown
  uint64_t cpu_user_ns = 0;     // at the last record (cumulative for the process)
  uint64_t cpu_system_ns = 0;
  uint64_t minor_faults = 0;
  uint64_t major_faults = 0;
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  uint64_t peak_threads = 0;
  uint64_t mean_cpu_frequency_khz = 0;  // 0 when never readable
};

ProcessMetrics summarize_metrics(const ProcessProfile& p);

struct BreakdownRow {
  size_t process = 0;   // index into Report::processes (thread and process rows)
  uint32_t thread = 0;  // index into that process's threads (thread rows)
  int64_t rank = -1;    // rank rows (and the process's rank elsewhere)
  uint64_t processes = 0, threads = 0;
  Measure time;                 // samples with a stack and their summed weight
  uint64_t cpu_time_ns = 0;     // thread_end records' CPU time (threads that ended)
  FunctionId top_function = 0;  // highest self time in this group
  uint64_t top_function_ns = 0;
  RunningStats time_per_thread;  // ns per sampled thread of the group (process and rank rows)
  // MPI (mpi_calls.h): the time of the group's threads that called MPI, and the part of it
  // inside calls that wait for other ranks (samples with such a call on the stack).
  Measure mpi_threads;
  Measure mpi_wait;
  uint64_t outside_mpi_wait_ns() const { return mpi_threads.time_ns - mpi_wait.time_ns; }
};

// Rank rows below 0: processes without a rank; kLauncherRank the processes of an MPI
// launcher's own programs (mpirun, orted, ..., and a launcher's fork before it execs a
// rank), kNoRank the others.
inline constexpr int64_t kNoRank = -1;
inline constexpr int64_t kLauncherRank = -2;

// Across the ranks of a job: where a bulk-synchronous job loses its time. Each rank's
// time outside MPI waits (its work) and inside them; the straggler is the rank whose work
// stands out (kStragglerExcess over the mean of the others, and beyond what the sample
// counts can tell apart), the rank the others wait for.
struct RankSpread {
  size_t ranks = 0;  // ranks >= 0 with MPI threads
  RunningStats outside_wait_ns;
  RunningStats wait_ns;
  int64_t straggler = -1;
  double straggler_excess = 0;    // its work over the others' mean work, as a fraction
  double peers_mean_wait_ns = 0;  // the other ranks' mean time in MPI waits
  // MPI wait calls by time, over every rank: (function, time).
  std::vector<std::pair<FunctionId, Measure>> wait_calls;
};
inline constexpr double kStragglerExcess = 0.10;

struct Breakdown {
  std::vector<BreakdownRow> threads;    // sorted by time
  std::vector<BreakdownRow> processes;  // sorted by time
  std::vector<BreakdownRow> ranks;      // by rank; launcher (-2), then none (-1), last
  RankSpread rank_spread;
  std::vector<ProcessMetrics> metrics;  // parallel to Report::processes
};

Breakdown build_breakdown(const std::vector<ProcessProfile>& processes,
                          const SymbolizedProfiles& symbols);

}  // namespace cprof::report
