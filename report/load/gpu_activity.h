#pragma once
// What the report keeps of a process's GPU activity (docs/gpu.md, records 32-35): its
// devices, every kernel dispatch and copy with its times, the launch call stacks
// interned like the samples' stacks, and the windows the hooks traced in when they
// traced only part of the run. Kept per process (a GPU hooks' companion file is
// folded into the sampler's process of the same pid: gpu_load.h), because launch stacks
// are symbolized with that process's modules.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "format/records.h"
#include "report/load/stack_table.h"

namespace cprof::report {

inline constexpr uint32_t kNoLaunchStack = ~uint32_t{0};

// One kernel dispatch. Device and name are indices (not record ids), so the activity of
// two files of one process merges by offsetting them.
struct GpuKernel {
  uint64_t submit_ns = 0;  // host CLOCK_MONOTONIC when it was submitted
  uint64_t start_ns = 0;   // execution, converted to the host clock; 0 when not timed
  uint64_t end_ns = 0;
  uint64_t queue_id = 0;
  uint64_t dispatch_id = 0;
  uint64_t correlation_id = 0;
  int64_t tid = 0;                 // the submitting thread
  uint32_t device = 0;             // index into GpuActivity::devices
  uint32_t name = 0;               // index into GpuActivity::kernel_names
  uint32_t stack = kNoLaunchStack;  // id in GpuActivity::launch_stacks
  uint32_t grid[3] = {0, 0, 0};
  uint32_t workgroup[3] = {0, 0, 0};

  // A record whose device times are missing or inverted (a dispatch that never completed
  // cleanly, a damaged record) counts as a call but has no duration.
  bool timed() const { return start_ns != 0 && end_ns >= start_ns; }
  uint64_t duration_ns() const { return timed() ? end_ns - start_ns : 0; }
};

struct GpuCopy {
  uint64_t submit_ns = 0;
  uint64_t start_ns = 0;  // 0, 0: not timed
  uint64_t end_ns = 0;
  uint64_t bytes = 0;
  uint64_t correlation_id = 0;
  int64_t tid = 0;
  format::CopyDirection direction = format::CopyDirection::unknown;
  uint32_t src_device = 0;  // indices into GpuActivity::devices
  uint32_t dst_device = 0;
  uint32_t stack = kNoLaunchStack;

  bool timed() const { return start_ns != 0 && end_ns >= start_ns; }
  uint64_t duration_ns() const { return timed() ? end_ns - start_ns : 0; }
};

struct GpuDevice {
  uint32_t record_id = 0;  // GpuDeviceRecord::id in its file
  std::string name;        // "device N" when no device record named it
  format::GpuDeviceKind kind = format::GpuDeviceKind::gpu;
  bool described = false;  // a GpuDeviceRecord named it (else only kernels or copies did)
};

struct GpuActivity {
  std::vector<std::string> engines;  // writers of the records ("hsa", "cupti"), once each
  std::vector<std::filesystem::path> files;  // companion files folded into this process
  std::vector<GpuDevice> devices;
  std::vector<std::string> kernel_names;  // distinct; "" = unknown
  std::vector<GpuKernel> kernels;         // in file order
  std::vector<GpuCopy> copies;
  StackTable launch_stacks;  // every frame a return address (looked up at address - 1)
  // The windows the hooks traced in (`--gpu-duty`, gpu_trace_window records, in file
  // order). Empty: they traced the whole run. Else kernels and copies are those launched
  // inside a window; the window open when the process died has no record
  // (report/profile/gpu_tracing.h infers it).
  std::vector<format::GpuTraceWindowRecord> trace_windows;

  bool empty() const { return kernels.empty() && copies.empty(); }
  bool windowed() const { return !trace_windows.empty(); }
};

}  // namespace cprof::report
