#pragma once
// What the report keeps of one process's results file: who it was, what it loaded, its
// threads, and its samples folded into (thread, stack) counts over an interned stack
// table. Ten million SampleRecords become a few thousand StackCounts; everything after
// loading (symbolization, aggregation, rendering) works on these.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "format/records.h"
#include "report/load/gpu_activity.h"
#include "report/load/perf_map.h"
#include "report/load/stack_table.h"

namespace cprof::report {

// The most characters of a command line a process label shows (ProcessProfile::label).
inline constexpr size_t kLabelCommandChars = 60;
// Fewer characters of the arguments than this are not shown at all.
inline constexpr size_t kLabelMinArgumentChars = 4;

struct ThreadInfo {
  int64_t tid = 0;
  std::string name;
  uint64_t start_ns = 0;
  bool existed_before_start = false;
  bool seen_record = false;  // a ThreadRecord named it (else only its samples did)
  bool ended = false;
  uint64_t end_ns = 0;
  uint64_t cpu_time_ns = 0;
  uint64_t dropped_samples = 0;
  uint64_t samples = 0;    // samples of the profile's clock (ProcessProfile::clock) read for it
  uint64_t weight_ns = 0;  // their summed weight
  // The summed weight of its CPU-clock samples, whichever clock the profile shows: what
  // the sampling-coverage check compares with its CPU time.
  uint64_t cpu_weight_ns = 0;
};

// All samples of one thread with one stack.
struct StackCount {
  uint32_t thread = 0;  // index into ProcessProfile::threads
  uint32_t stack = 0;   // id in ProcessProfile::stacks
  uint64_t samples = 0;
  uint64_t weight_ns = 0;
  std::vector<uint64_t> counters;  // summed counter deltas, by EventRecord::index
};

// One sample's place on the timeline, kept only when a timeline format asks for it
// (LoadOptions::keep_timeline): 24 bytes a sample instead of none.
struct TimelineSample {
  uint64_t time_ns = 0;    // when it was taken (CLOCK_MONOTONIC of its process)
  uint32_t weight_ns = 0;  // the time it stands for, saturated at ~4.3 s
  uint32_t thread = 0;     // index into ProcessProfile::threads
  uint32_t stack = 0;      // id in ProcessProfile::stacks
};

// Which of a process's samples make its profile. `sample-run --clock wall` takes CPU-clock
// and wall-clock samples side by side (process record clock "cpu+wall"); adding them up
// would count on-CPU time twice, so a profile is of one clock: the other clock's samples
// are set aside (their counter deltas still count, see other_clock_counts).
enum class ClockChoice {
  automatic,  // the wall clock for a process sampled on it, else the CPU clock
  cpu,
  wall,
};

struct ProcessProfile {
  std::filesystem::path file;
  std::string run;  // the subdirectory of DIR it was found in; empty at the top

  bool has_process_record = false;
  format::ProcessRecord process;
  std::vector<format::ModuleRecord> modules;  // sorted by start after loading
  std::vector<ThreadInfo> threads;
  std::vector<format::EventRecord> events;
  std::vector<format::MetricRecord> metrics;
  std::vector<format::MessageRecord> messages;
  // Causal runs (docs/causal.md): experiments, progress points, timed regions.
  std::vector<format::ExperimentRecord> experiments;
  // Experiments after the process's last progress, left out of `experiments`
  // (causal/idle_tail.h).
  size_t idle_tail_experiments = 0;
  std::vector<format::ProgressPointRecord> progress_points;
  std::vector<format::RegionRecord> regions;
  // Per-call spans of the timed regions, in batches as written (format 1.3): the first
  // calls up to the runtime's cap (CPROF_CAUSAL_REGION_SPANS); `regions` counts them all.
  std::vector<format::RegionSpansRecord> region_spans;
  // GPU kernels, copies and devices (docs/gpu.md), its companion .gpu.cprof files included.
  GpuActivity gpu;
  // JIT code names from the perf map the sampler copied next to the file (X.perf-map for
  // X.cprof, perf_map.h); empty without one.
  std::filesystem::path jit_map;
  std::vector<JitSymbol> jit_symbols;

  StackTable stacks;
  // The samples of the profile's clock (`clock`): every view is built from these.
  std::vector<StackCount> counts;
  // The other clock's samples, set aside but kept by (thread, stack) with their counter
  // deltas: counter values ride on the samples that read them (the CPU-clock ones), so a
  // wall-clock profile still has every counted event, each counted once.
  std::vector<StackCount> other_clock_counts;
  std::vector<TimelineSample> timeline;  // in file order; empty unless asked for

  // The clock whose samples make the profile (ClockChoice, decided when the first sample
  // is read: by then the process record, which comes first, has said how it was sampled).
  format::SampleClock clock = format::SampleClock::cpu;
  uint64_t samples = 0;    // samples of `clock`
  uint64_t weight_ns = 0;  // their summed weight
  uint64_t truncated_samples = 0;
  uint64_t empty_samples = 0;  // samples with no frames: counted, not attributed
  uint64_t wall_clock_samples = 0;  // of either use
  uint64_t other_clock_samples = 0;  // the other clock's samples, set aside
  uint64_t other_clock_weight_ns = 0;
  uint64_t first_time_ns = ~uint64_t{0};  // earliest timestamp of any timed record
  uint64_t last_time_ns = 0;
  uint64_t file_bytes = 0;
  uint64_t unknown_records = 0;
  uint64_t skipped_bytes = 0;
  // The writer never ended the file (format 1.6 on, format/framing.h): the process was
  // killed (SIGKILL), is still running, or the file was cut (a full disk, a copy).
  bool cut = false;

  // Wall time from the runtime's start to the last thing it recorded.
  uint64_t duration_ns() const;
  // Dropped samples over all threads.
  uint64_t dropped_samples() const;
  // Highest RSS in the metrics, 0 when none were recorded.
  uint64_t peak_rss_bytes() const;
  // Process CPU time / wall time over the metrics' span (1.0 = one core busy); <0 unknown.
  double cpu_utilization() const;
  // Whether the process record says it was sampled on the wall clock ("cpu+wall", "wall").
  bool sampled_on_wall_clock() const;
  // "cpu" or "wall": the clock of the profile.
  const char* clock_name() const;
  // The process's name in every format: its executable's file name and arguments, then
  // its pid (and rank): "app[1234]", "git gc --aggressive [1234]", "app -x [12] rank 3".
  // The command is cut with "..." past kLabelCommandChars, or to keep the whole label
  // within `width` (never the pid or rank).
  std::string label(size_t width = SIZE_MAX) const;
};

}  // namespace cprof::report
