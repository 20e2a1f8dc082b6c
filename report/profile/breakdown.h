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
};

struct Breakdown {
  std::vector<BreakdownRow> threads;    // sorted by time
  std::vector<BreakdownRow> processes;  // sorted by time
  std::vector<BreakdownRow> ranks;      // by rank; -1 (no rank) last
  std::vector<ProcessMetrics> metrics;  // parallel to Report::processes
};

Breakdown build_breakdown(const std::vector<ProcessProfile>& processes,
                          const SymbolizedProfiles& symbols);

}  // namespace cprof::report
