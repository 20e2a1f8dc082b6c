#pragma once
// How much of the run the GPU hooks traced (docs/report.md, "GPU"). With `--gpu-duty` the
// hooks trace launches only inside windows (duty × period of each period, at a random
// offset: docs/gpu.md#trace-windows) and write a gpu_trace_window record as each closes.
// Kernel and copy counts and times stay what was measured in the windows; busy and idle
// gaps are measured inside them (gpu_timeline.h); the renderers say how much was traced
// and offer span / traced as the factor to the whole run.
//
// The window open when a process died has no record (it is written at the window's
// close). Launches after the last recorded window's end come from such windows: they are
// grouped from the first of them into windows of the planned length (duty × period) and
// those are "inferred" windows, measured like the others. Launches less than
// kWindowSwitchLagNs after a window's end are the switch's lag (the end is read just
// after tracing is turned off, but a launch that read the switch and was then preempted
// reads the clock later), not a lost window. A launch outside every window, recorded or
// inferred, still counts in the kernel and copy tables but not in busy time.

#include <cstdint>
#include <vector>

#include "report/load/process_profile.h"
#include "report/profile/gpu_timeline.h"

namespace cprof::report {

inline constexpr uint64_t kWindowSwitchLagNs = 1'000'000;

// One process's windows. Not windowed (no records): everything empty, the process was
// traced throughout.
struct GpuProcessTracing {
  // Sorted and merged: the recorded windows, then the inferred ones (the last
  // inferred_windows entries, all after the last recorded end).
  std::vector<TimeInterval> windows;
  uint64_t recorded_windows = 0;  // after merging overlapping records
  uint64_t inferred_windows = 0;
  double duty_min = 0, duty_max = 0;  // over the records
  uint64_t period_min_ns = 0, period_max_ns = 0;
  uint64_t traced_ns = 0;  // summed window length
  // The run the windows were placed over: window 0 opens when the hooks start, and they
  // stop at exit: from the first window's start to the later of the last window's end
  // and the process's last record.
  uint64_t span_start_ns = 0, span_end_ns = 0;
  uint64_t outside = 0;  // kernels and copies launched outside every window

  bool windowed() const { return !windows.empty(); }
  uint64_t span_ns() const { return span_end_ns - span_start_ns; }
};

// `run_end_ns`: the process's last record (ProcessProfile::last_time_ns). A kernel or
// copy is placed by its submission time (its start when that is 0; neither: not placed).
GpuProcessTracing gpu_process_tracing(const GpuActivity& g, uint64_t run_end_ns);

// Over every process of the report.
struct GpuTracing {
  std::vector<GpuProcessTracing> by_process;  // one per ProcessProfile, in order
  uint64_t processes = 0;                     // processes with GPU records
  uint64_t windowed_processes = 0;            // ... of them traced in windows
  uint64_t windows = 0, inferred_windows = 0;
  uint64_t outside = 0;
  // Over the windowed processes: min and max of duty and period, summed traced time and
  // span (each process's own).
  double duty_min = 0, duty_max = 0;
  uint64_t period_min_ns = 0, period_max_ns = 0;
  uint64_t traced_ns = 0, span_ns = 0;

  bool windowed() const { return windowed_processes > 0; }
  // The windowed processes disagree on duty or period.
  bool mixed() const { return duty_min != duty_max || period_min_ns != period_max_ns; }
  // traced / span of the windowed processes; 1 when not windowed.
  double traced_fraction() const;
  // span / traced: what the windows' counts and times are multiplied by to estimate the
  // whole run's (an estimate: it assumes the windows saw a fair share). 1 when not
  // windowed, 0 when the windows add up to no time.
  double scale() const;
};

// Fills by_process and the totals.
GpuTracing build_gpu_tracing(const std::vector<ProcessProfile>& processes);

}  // namespace cprof::report
