#pragma once
// The HSA tool's state: the runtime's original functions, the replacements that the tool
// puts in the runtime's API table, and the bookkeeping that turns every kernel dispatch
// and async copy into a record (docs/gpu.md).
//
// How a dispatch is timed: queues are created with hsa_amd_queue_intercept_create, so the
// runtime hands every AQL packet the program submits to on_submit() (on the submitting
// thread) before it reaches the hardware queue. For a kernel dispatch packet the tool
// records the submitting thread's call stack, puts its own completion signal (value 1)
// into the packet and arms an async handler on it. When the packet processor decrements
// that signal, the handler (on the runtime's async-handler thread) reads the packet's
// start and end (hsa_amd_profiling_get_dispatch_time, HSA system clock), then decrements
// the program's own completion signal exactly as the packet processor would have
// (subtract 1, release), and only then builds the record.

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/records.h"
#include "gpu/common/clock_map.h"
#include "gpu/common/launch_stack.h"
#include "gpu/common/results_file.h"
#include "gpu/common/trace_windows.h"
#include "gpu/hsa/hsa_api.h"
#include "gpu/hsa/kernel_names.h"

namespace cprof::gpu::hsa {

// HSA system timestamp domain -> host CLOCK_MONOTONIC ns, refreshed every second (ROCr's
// clock is not necessarily CLOCK_MONOTONIC).
using gpu::ClockMap;

class Tracer;

struct QueueInfo {
  Tracer* tracer = nullptr;
  hsa_agent_t agent{};
  uint32_t device_id = 0;
  uint64_t queue_id = 0;
};

struct Device {
  uint32_t id = 0;
  format::GpuDeviceKind kind = format::GpuDeviceKind::other;
};

struct Counters {
  std::atomic<uint64_t> dispatches{0};    // kernel dispatches tracked
  std::atomic<uint64_t> copies{0};        // async copies tracked
  std::atomic<uint64_t> untracked{0};     // passed through unchanged (no signal, an error)
  // Passed through unchanged between trace windows: AQL packets, async copies.
  std::atomic<uint64_t> packets_outside_windows{0};
  std::atomic<uint64_t> copies_outside_windows{0};
  std::atomic<uint64_t> completed{0};     // completion handlers run
};

class Tracer {
 public:
  // "" when the tool can work with this table, else why not (one line).
  static std::string check_table(const HsaApiTable* table);

  // Copies the original functions of `table` (checked with check_table).
  explicit Tracer(const HsaApiTable& table);
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // Opens the results file and, under CPROF_GPU_DUTY, starts the trace windows. "" or the
  // reason (a bad CPROF_GPU_DUTY or CPROF_GPU_PERIOD_MS included).
  std::string start();
  // Ends the trace windows, writes everything and closes the file. Completion handlers that run later still
  // forward the program's signals; their records are dropped (counted).
  void stop();
  // Puts the replacements into the runtime's table.
  void install(HsaApiTable* table);

  const Counters& counters() const { return counters_; }
  std::string results_path() const { return file_.path(); }

  // The replacements (reached through the static trampolines in hsa_tool.cpp).
  hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                            void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                            uint32_t private_segment_size, uint32_t group_segment_size,
                            hsa_queue_t** queue);
  hsa_status_t executable_freeze(hsa_executable_t exe, const char* options);
  hsa_status_t executable_destroy(hsa_executable_t exe);
  hsa_status_t memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                                 hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                                 const hsa_signal_t* dep_signals, hsa_signal_t completion);
  // 2D/3D copies (hipMemcpy2D/3D): timed like the others; bytes = x × y × z of the range.
  hsa_status_t memory_async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset,
                                      const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset,
                                      const hsa_dim3_t* range, hsa_agent_t copy_agent,
                                      hsa_amd_copy_direction_t dir, uint32_t num_dep_signals,
                                      const hsa_signal_t* dep_signals, hsa_signal_t completion);
  // Whether the runtime has the rect copy to hook (an older table may not).
  bool has_copy_rect() const { return amd_.hsa_amd_memory_async_copy_rect_fn != nullptr; }
  hsa_status_t async_copy_enable(bool enable);
  void on_submit(const void* packets, uint64_t count, uint64_t user_index, QueueInfo* queue,
                 hsa_amd_queue_intercept_packet_writer writer);

 private:
  // The process that started the tool: a forked child has none of its threads (and no
  // usable GPU context), so stop() there leaves everything to the parent.
  const pid_t pid_ = ::getpid();
  struct Pending;
  static bool on_dispatch_complete(hsa_signal_value_t value, void* arg);
  static bool on_copy_complete(hsa_signal_value_t value, void* arg);

  bool take_signal(hsa_signal_t& out);
  void return_signal(hsa_signal_t s);
  Device device_of(hsa_agent_t agent);
  Device host_device();  // the first CPU agent's (the host end of rect copies)
  // A copy's bookkeeping around `forward(signal)`, which submits it to the runtime with the
  // completion signal to use (the tool's, or the program's when it is not tracked);
  // `ends()` gives its source and destination devices, asked only when it is tracked.
  template <typename Ends, typename Forward>
  hsa_status_t track_copy(Ends&& ends, uint64_t bytes, hsa_signal_t completion,
                          Forward&& forward);
  uint64_t to_host(uint64_t ticks);
  void calibrate_locked();
  void fill_launch(Pending& p);

  CoreApiTable core_{};  // the runtime's own functions
  AmdExtTable amd_{};
  LaunchStacks stacks_;
  GpuResultsFile file_;
  KernelNames names_;
  Counters counters_;
  std::atomic<uint64_t> next_correlation_{1};
  std::once_flag copy_profiling_once_;
  std::atomic<bool> copy_profiling_{false};
  // Off between trace windows: dispatches and copies pass through untouched.
  std::atomic<bool> tracing_{true};
  std::unique_ptr<TraceWindows> windows_;

  std::mutex signals_mutex_;
  std::vector<hsa_signal_t> free_signals_;

  std::once_flag host_agent_once_;
  hsa_agent_t host_agent_{};

  std::mutex devices_mutex_;
  std::unordered_map<uint64_t, Device> devices_;  // agent handle -> device

  std::mutex queues_mutex_;
  std::vector<std::unique_ptr<QueueInfo>> queues_;  // kept: late completions point at them

  std::mutex clock_mutex_;
  ClockMap clock_;
  uint64_t calibrated_at_ns_ = 0;
};

}  // namespace cprof::gpu::hsa
