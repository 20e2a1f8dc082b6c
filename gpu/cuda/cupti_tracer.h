#pragma once
// The CUDA tool's state and its CUPTI plumbing (docs/gpu.md):
//  - the callback API, enabled only for the launch and copy functions that classify_api
//    picks from CUPTI's callback names, runs LaunchTracker at each call's entry and exit
//    on the launching thread (stack + correlation id);
//  - the activity API (CONCURRENT_KERNEL, MEMCPY, DEVICE) hands back buffers of records
//    on CUPTI's own thread (or the thread that flushes); ActivityRecords joins them to
//    their launches and the records go to the tool's results file;
//  - under CPROF_GPU_DUTY both are switched on and off by TraceWindows, except the host
//    synchronization callbacks of causal-run, which stay on.

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <cupti.h>

#include "gpu/common/clock_map.h"
#include "gpu/common/launch_stack.h"
#include "gpu/common/results_file.h"
#include "gpu/common/trace_windows.h"
#include "gpu/cuda/activity_records.h"
#include "gpu/cuda/api_filter.h"
#include "gpu/cuda/launch_join.h"
#include "gpu/cuda/launch_tracker.h"

namespace cprof::gpu::cuda {

class CuptiTracer {
 public:
  CuptiTracer();
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  // Opens the results file and subscribes to CUPTI. "" or one line saying why not (then
  // nothing stays subscribed and the program runs untraced).
  std::string start();
  // Forces out every activity buffer (records of kernels still running are written
  // untimed), then writes and closes the file. Records CUPTI delivers later are dropped.
  void stop();

 private:
  static void CUPTIAPI on_api(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                              const void* data);
  static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer,
                                        size_t size, size_t valid);

  // Enables the callbacks of one domain: the launches and copies (`launches`), the host
  // synchronizations (`syncs`: under causal-run, sync_callbacks.h).
  std::string enable_callbacks(CUpti_CallbackDomain domain, uint32_t cbid_count,
                               std::vector<ApiKind>& kinds, bool launches, bool syncs);
  void read_buffer(CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid);
  void calibrate_locked();
  // Trace windows: the launch and copy callbacks and the kernel and copy activity kinds,
  // on (callbacks first: a record then finds its launch) or off (activity first).
  void switch_tracing(bool on);

  LaunchStacks stacks_;
  GpuResultsFile file_;
  LaunchJoin join_;
  LaunchTracker tracker_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::vector<ApiKind> runtime_kinds_;  // by callback id
  std::vector<ApiKind> driver_kinds_;
  // The launch and copy callbacks that trace windows switch (domain, callback id).
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> window_callbacks_;
  std::unique_ptr<TraceWindows> windows_;
  std::atomic<uint64_t> switch_failures_{0};  // CUPTI calls refused by switch_tracing
  CUptiResult last_switch_error_ = CUPTI_SUCCESS;

  std::mutex activity_mutex_;  // buffers may complete on several threads at once
  ActivityRecords records_;
  uint64_t calibrated_at_ns_ = 0;
  uint64_t started_ns_ = 0;
  // The process that started the tool: a forked child has none of its threads (and no
  // usable CUDA context), so stop() there leaves everything to the parent.
  const pid_t pid_ = ::getpid();
  uint64_t dropped_records_ = 0;  // CUPTI's count of records it had no buffer for
};

}  // namespace cprof::gpu::cuda
