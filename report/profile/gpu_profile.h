#pragma once
// The GPU side of the report (docs/report.md, "GPU"): kernels by total time with their
// duration statistics, kernel time under the CPU code that launched it (a flat profile
// by launching function and line, and a call tree of the launch stacks), each device's
// busy share and idle gaps, and copies by direction. Merged over every process and run.
//
// A kernel's launch site is the innermost frame of its launch stack that is not in a GPU
// runtime library (libhsa-runtime64, libamdhip64, libcuda, libcudart, ...: the frames
// between the program's call and the hooks say nothing about the program). Its "self"
// time goes to that site; its "total" time to every function and line on the stack from
// the outermost frame down to the site, once per kernel.
//
// When the hooks traced only windows of the run (gpu_tracing.h), counts and times are
// those of the windows (not scaled); `tracing` says how much was traced, and a device's
// busy share and idle gaps are measured inside the windows.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/running_stats.h"
#include "report/load/process_profile.h"
#include "report/profile/gpu_timeline.h"
#include "report/profile/gpu_tracing.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

// A launch site: the innermost inline frame of the site's location.
struct GpuSite {
  static constexpr FunctionId kNone = ~FunctionId{0};  // a kernel without a launch stack
  FunctionId function = kNone;
  LineId line = 0;
  bool none() const { return function == kNone; }
};

struct GpuMeasure {
  uint64_t calls = 0;
  uint64_t time_ns = 0;  // summed execution time of the timed calls
};

struct GpuKernelSite {
  GpuSite site;
  GpuMeasure measure;
};

struct GpuKernelRow {
  std::string name;  // "" when the hooks could not name it
  uint64_t calls = 0;
  uint64_t untimed = 0;         // calls without device times (counted, not timed)
  RunningStats duration_ns;     // over the timed calls
  uint64_t total_ns = 0;        // exact sum (the stats' sum is a double)
  std::vector<GpuKernelSite> sites;  // by time, then calls
};

// A launching function (id = FunctionId) or line (id = LineId); id kNoSite for kernels
// without a launch stack.
struct GpuLaunchRow {
  static constexpr uint32_t kNoSite = ~uint32_t{0};
  uint32_t id = 0;
  GpuMeasure self;   // kernels launched from exactly here
  GpuMeasure total;  // kernels with this on their launch stack
};

struct GpuTreeNode {
  uint32_t parent = 0;  // node 0 is the root
  FunctionId function = 0;  // GpuSite::kNone under the root: kernels without a stack
  uint32_t depth = 0;
  GpuMeasure self, total;
  std::vector<uint32_t> children;  // by total time, then calls, then function
};

struct GpuDeviceRow {
  std::string name;
  format::GpuDeviceKind kind = format::GpuDeviceKind::gpu;
  std::string hostname;  // the same device id on one host in one run is one device
  std::string run;
  uint32_t record_id = 0;
  uint64_t kernels = 0;
  uint64_t timed_kernels = 0;
  uint64_t kernel_ns = 0;  // summed kernel time (more than busy when kernels overlap)
  uint64_t queues = 0;
  uint64_t copies = 0;     // copies with this device at either end
  // Over the timed kernels; when a process that ran kernels on it was traced in windows,
  // inside the windows (of several such processes: where all of them were traced, the
  // intersection of their windows).
  BusySummary busy;
};

struct GpuCopyRow {
  format::CopyDirection direction = format::CopyDirection::unknown;
  uint64_t count = 0;
  uint64_t bytes = 0;
  uint64_t timed = 0;        // copies with device times
  uint64_t timed_bytes = 0;  // their bytes: what the rate is over
  uint64_t time_ns = 0;
  RunningStats duration_ns;
  // Bytes of the timed copies over their summed time, in GB/s (1e9 bytes); 0 untimed.
  double gb_per_s() const;
};

struct GpuProfile {
  std::vector<std::string> engines;
  uint64_t kernels = 0, timed_kernels = 0, kernel_ns = 0;
  uint64_t copies = 0, copy_bytes = 0;
  std::vector<GpuKernelRow> kernel_rows;        // by total time, then calls, then name
  std::vector<GpuLaunchRow> launch_functions;   // by self time, then total time
  std::vector<GpuLaunchRow> launch_lines;
  std::vector<GpuTreeNode> launch_tree;         // parents first; [0] the root (empty: no data)
  std::vector<GpuDeviceRow> devices;            // devices that ran kernels or copies, first seen first
  std::vector<GpuCopyRow> copy_rows;            // directions that occurred, in enum order
  // Per process: the devices row of each GpuActivity::devices entry (~0u: none, a device
  // that nothing ran on), and the launch site of each launch stack.
  std::vector<std::vector<uint32_t>> device_row;
  std::vector<std::vector<GpuSite>> stack_site;
  GpuTracing tracing;  // trace windows, per process and over all

  // Nothing to show: no kernel, no copy, and no window said that tracing was on.
  bool empty() const { return kernels == 0 && copies == 0 && !tracing.windowed(); }
  // Share of all kernel time.
  double fraction(const GpuMeasure& m) const;
};

// True for a GPU runtime library's path (its basename): frames there are not launch sites.
bool is_gpu_runtime_module(std::string_view path);

GpuProfile build_gpu_profile(const std::vector<ProcessProfile>& processes,
                             const SymbolizedProfiles& symbols);

// "host to device", ...
const char* copy_direction_name(format::CopyDirection d);
// "gpu", "cpu", "other"
const char* device_kind_name(format::GpuDeviceKind k);

}  // namespace cprof::report
