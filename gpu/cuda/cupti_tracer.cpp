#include "gpu/cuda/cupti_tracer.h"

#include <unistd.h>

#include <cstdlib>
#include <new>

#include "gpu/common/causal_wait.h"
#include "gpu/common/tool_settings.h"
#include "gpu/cuda/sync_callbacks.h"

namespace cprof::gpu::cuda {
namespace {

constexpr uint64_t kCalibrateEveryNs = 1000000000;
// Small buffers come back sooner (CUPTI returns a buffer when it is full or flushed), so
// fewer launches wait in the join; 1 MiB holds ~4000 kernel records.
constexpr size_t kBufferBytes = size_t{1} << 20;
constexpr size_t kBufferAlign = 8;  // ACTIVITY_RECORD_ALIGNMENT in CUPTI's samples
// CUPTI returns buffers on its own when full; this bounds how long a record can wait in a
// half-empty one (and so how long its launch waits in the join), in ms.
constexpr uint32_t kFlushPeriodMs = 100;

// The activity kinds of kernels (not serializing them: KIND_KERNEL would) and copies.
constexpr CUpti_ActivityKind kKernelKind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
constexpr CUpti_ActivityKind kCopyKind = CUPTI_ACTIVITY_KIND_MEMCPY;

// Above this many watched calls per second of the run, tracing each one (CUPTI's callback
// and activity costs, ~2-4 µs per launch on an H100) takes more than ~5% of the launching
// thread's time: the tool says so at exit and points at --gpu-duty.
constexpr double kLaunchBoundCallsPerSecond = 20000;
// ...and only after this many: a short run's rate is mostly its start-up noise (ten
// launches in half a millisecond read as 20,000 per second), and a few milliseconds of
// tracing cost in all is not worth a hint.
constexpr uint64_t kLaunchBoundMinCalls = 1000;

// The buffer callbacks take no user data; there is one tracer per process.
CuptiTracer* g_tracer = nullptr;

std::string cupti_error(const char* what, CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown error";
  return std::string(what) + ": " + text;
}

}  // namespace

CuptiTracer::CuptiTracer()
    : stacks_(launch_stack_depth_from_environment(), launch_stacks_from_environment()),
      file_(stacks_.modules()),
      tracker_(join_, stacks_),
      records_(join_, [this](format::Record r) { file_.add(std::move(r)); }) {}

std::string CuptiTracer::start() {
  {
    std::lock_guard lock(activity_mutex_);
    calibrate_locked();
  }
  started_ns_ = monotonic_ns();
  std::string duty_error;
  const auto duty = trace_duty_from_environment(duty_error);
  if (!duty) return duty_error;
  const char* api = std::getenv("CPROF_CUDA_API");
  const auto domains = parse_api_domains(api != nullptr ? api : "");
  if (!domains) {
    return std::string("CPROF_CUDA_API=") + api + ": expected driver, runtime, both or none";
  }
  g_tracer = this;
  std::string err;
  if (const CUptiResult r = cuptiSubscribe(&subscriber_, &CuptiTracer::on_api, this);
      r != CUPTI_SUCCESS) {
    // Most often another CUPTI client (a profiler, the program itself) subscribed first.
    err = cupti_error("cuptiSubscribe", r);
    subscriber_ = nullptr;
  }
  // Under causal-run the host synchronizations are GPU waits (sync_callbacks.h), in both
  // domains: the runtime's calls need not reach the driver's sync functions. Nested
  // callbacks (runtime, then driver) pair up in the causal runtime.
  const bool syncs = find_causal_runtime();
  if (err.empty() && (domains->runtime || syncs)) {
    err = enable_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE,
                           runtime_kinds_, domains->runtime, syncs);
  }
  if (err.empty() && (domains->driver || syncs)) {
    err = enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE,
                           driver_kinds_, domains->driver, syncs);
  }
  if (err.empty()) {
    if (const CUptiResult r = cuptiActivityRegisterCallbacks(&CuptiTracer::buffer_requested,
                                                             &CuptiTracer::buffer_completed);
        r != CUPTI_SUCCESS) {
      err = cupti_error("cuptiActivityRegisterCallbacks", r);
    }
  }
  for (const CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_DEVICE, kKernelKind, kCopyKind}) {
    if (!err.empty()) break;
    if (const CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
      err = cupti_error("cuptiActivityEnable", r);
    }
  }
  // The file last: no results file is left behind when CUPTI refuses. Nothing can be
  // recorded before it opens: this runs inside cuInit, before any launch.
  if (err.empty()) err = file_.open(gpu_results_stem(output_dir_from_environment()), "cupti");
  if (!err.empty()) {
    cuptiActivityDisable(kKernelKind);
    cuptiActivityDisable(kCopyKind);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DEVICE);
    if (subscriber_ != nullptr) cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
    g_tracer = nullptr;
    return err;
  }
  cuptiActivityFlushPeriod(kFlushPeriodMs);  // optional: older CUPTI flush only when full
  if (duty->windowed()) {
    windows_ = start_trace_windows(*duty, [this](bool on) { switch_tracing(on); }, file_);
  }
  return "";
}

void CuptiTracer::switch_tracing(bool on) {
  const auto check = [this](CUptiResult r) {
    if (r == CUPTI_SUCCESS) return;
    switch_failures_.fetch_add(1, std::memory_order_relaxed);
    last_switch_error_ = r;  // only this thread switches
  };
  const auto callbacks = [&](uint32_t enable) {
    for (const auto& [domain, cbid] : window_callbacks_) {
      check(cuptiEnableCallback(enable, subscriber_, domain, cbid));
    }
  };
  if (on) {
    tracker_.new_window();
    callbacks(1);
    check(cuptiActivityEnable(kKernelKind));
    check(cuptiActivityEnable(kCopyKind));
  } else {
    check(cuptiActivityDisable(kKernelKind));
    check(cuptiActivityDisable(kCopyKind));
    callbacks(0);
  }
}

std::string CuptiTracer::enable_callbacks(CUpti_CallbackDomain domain, uint32_t cbid_count,
                                          std::vector<ApiKind>& kinds, bool launches,
                                          bool syncs) {
  kinds.assign(cbid_count, ApiKind::none);
  for (uint32_t cbid = 1; cbid < cbid_count; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    ApiKind kind = launches ? classify_api(name) : ApiKind::none;
    if (kind == ApiKind::none && syncs && is_host_sync_api(name)) kind = ApiKind::host_sync;
    if (kind == ApiKind::none) continue;
    if (const CUptiResult r = cuptiEnableCallback(1, subscriber_, domain, cbid);
        r != CUPTI_SUCCESS) {
      return cupti_error("cuptiEnableCallback", r);
    }
    kinds[cbid] = kind;
    if (kind != ApiKind::host_sync) window_callbacks_.emplace_back(domain, cbid);
  }
  return "";
}

void CUPTIAPI CuptiTracer::on_api(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                  const void* data) {
  auto& t = *static_cast<CuptiTracer*>(self);
  const auto& kinds = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? t.runtime_kinds_ : t.driver_kinds_;
  if ((domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) ||
      cbid >= kinds.size() || kinds[cbid] == ApiKind::none) {
    return;
  }
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (kinds[cbid] == ApiKind::host_sync) {
    if (cb->callbackSite == CUPTI_API_ENTER) {
      host_sync_enter();
    } else {
      host_sync_exit();
    }
    return;
  }
  if (cb->callbackSite == CUPTI_API_ENTER) {
    t.tracker_.enter(kinds[cbid], cb->correlationId);
  } else {
    // CUresult and cudaError_t are both int enums whose success value is 0.
    const bool failed = cb->functionReturnValue != nullptr &&
                        *static_cast<const int*>(cb->functionReturnValue) != 0;
    t.tracker_.exit(cb->correlationId, failed);
  }
}

void CUPTIAPI CuptiTracer::buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;  // size 0: CUPTI drops (and counts) records
  *max_records = 0;  // as many as fit
}

void CUPTIAPI CuptiTracer::buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer,
                                            size_t, size_t valid) {
  if (g_tracer != nullptr && buffer != nullptr) g_tracer->read_buffer(context, stream, buffer, valid);
  std::free(buffer);
}

void CuptiTracer::calibrate_locked() {
  const auto map = calibrate_clock(
      [](uint64_t& ticks) { return cuptiGetTimestamp(&ticks) == CUPTI_SUCCESS; }, 1.0);
  if (map) records_.set_clock(*map);
  calibrated_at_ns_ = monotonic_ns();
}

void CuptiTracer::read_buffer(CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid) {
  std::lock_guard lock(activity_mutex_);
  if (monotonic_ns() - calibrated_at_ns_ > kCalibrateEveryNs) calibrate_locked();
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        KernelActivity a;
        a.correlation_id = k->correlationId;
        a.start = k->start;
        a.end = k->end;
        a.device = k->deviceId;
        a.stream = k->streamId;
        a.grid_id = k->gridId;
        a.grid[0] = k->gridX;
        a.grid[1] = k->gridY;
        a.grid[2] = k->gridZ;
        a.block[0] = k->blockX;
        a.block[1] = k->blockY;
        a.block[2] = k->blockZ;
        a.name = k->name;
        records_.kernel(a);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        CopyActivity a;
        a.correlation_id = m->correlationId;
        a.start = m->start;
        a.end = m->end;
        a.device = m->deviceId;
        a.stream = m->streamId;
        a.bytes = m->bytes;
        a.kind = m->copyKind;
        records_.copy(a);
        break;
      }
      case CUPTI_ACTIVITY_KIND_DEVICE: {
        const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
        records_.device(d->id, d->name != nullptr ? d->name : "");
        break;
      }
      default:
        break;
    }
  }
  size_t dropped = 0;
  if (context != nullptr && cuptiActivityGetNumDroppedRecords(context, stream, &dropped) ==
                                CUPTI_SUCCESS) {
    dropped_records_ += dropped;
  }
}

void CuptiTracer::stop() {
  // A forked child's exit: joining the parent's threads here would wait forever (their
  // pthread_t may even name a thread of the child's that reused the stack).
  if (::getpid() != pid_) return;
  if (windows_) windows_->stop();  // the open window ends here; tracing stays as it is
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard lock(activity_mutex_);
    const double seconds = static_cast<double>(monotonic_ns() - started_ns_) * 1e-9;
    const uint64_t calls = join_.added();
    if (const double rate = static_cast<double>(calls) / seconds;
        !windows_ && seconds > 0 && calls >= kLaunchBoundMinCalls &&
        rate > kLaunchBoundCallsPerSecond) {
      file_.add(format::MessageRecord{
          .time_ns = monotonic_ns(),
          .level = format::MessageLevel::info,
          .text = "cprof-cuda: " + std::to_string(static_cast<uint64_t>(rate)) +
                  " launches and copies per second were each traced (CUPTI adds microseconds "
                  "to every one); --gpu-duty 10 traces windows over a tenth of the run at "
                  "about a tenth of that cost"});
    }
    if (const uint64_t failures = switch_failures_.load(); failures > 0) {
      file_.add(format::MessageRecord{
          .time_ns = monotonic_ns(),
          .level = format::MessageLevel::warning,
          .text = "cprof-cuda: " + std::to_string(failures) +
                  " CUPTI calls that switch trace windows failed (" +
                  cupti_error("last", last_switch_error_) +
                  "); the windows' records may not cover them exactly"});
    }
    if (dropped_records_ > 0) {
      file_.add(format::MessageRecord{
          .time_ns = monotonic_ns(),
          .level = format::MessageLevel::warning,
          .text = "cprof-cuda: CUPTI dropped " + std::to_string(dropped_records_) +
                  " activity records (no buffer)"});
    }
  }
  file_.close();
}

}  // namespace cprof::gpu::cuda
