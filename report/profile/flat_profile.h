#pragma once
// The flat profile: per function and per source line, the samples and time where it was
// the innermost frame (self) and where it was anywhere on the stack (total, once per
// sample however often recursion or inlining repeats it), with the spread of its time
// across threads.
//
// Built from the interned form: each distinct stack is expanded to its functions and
// lines once, then each (thread, stack) count adds to those rows -- the cost follows the
// distinct stacks, not the samples.

#include <cstdint>
#include <vector>

#include "report/load/process_profile.h"
#include "common/running_stats.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct Measure {
  uint64_t samples = 0;
  uint64_t time_ns = 0;  // summed sample weights
};

struct FlatRow {
  uint32_t id = 0;  // FunctionId or LineId
  Measure self;
  Measure total;
  // Nanoseconds per sampled thread, over every sampled thread of every process (a thread
  // where the row never appears counts as 0).
  RunningStats self_per_thread;
  RunningStats total_per_thread;
};

// The spread of a row's time over processes and over runs (subdirectories of DIR): mean,
// min, max, stddev of its nanoseconds per process and per run, a process or run where it
// never appears counting as 0.
struct GroupSpread {
  RunningStats self_per_process, total_per_process;
  RunningStats self_per_run, total_per_run;
};

struct FlatOptions {
  bool group_spread = false;  // also GroupSpread per row (one more pass over the counts)
};

struct FlatProfile {
  Measure all;                     // every sample with a stack
  uint64_t threads = 0;            // threads with at least one such sample
  std::vector<FlatRow> functions;  // sorted by self time, then total time
  std::vector<FlatRow> lines;
  // Parallel to functions and lines; empty unless FlatOptions::group_spread.
  std::vector<GroupSpread> function_spread, line_spread;
  uint64_t processes = 0, runs = 0;  // what the spreads are over (processes with samples)

  // Share of all time (of all samples when no sample carries a weight).
  double fraction(const Measure& m) const;
};

FlatProfile build_flat_profile(const std::vector<ProcessProfile>& processes,
                               const SymbolizedProfiles& symbols, const FlatOptions& options = {});

}  // namespace cprof::report
