// The stand-in CUPTI and CUDA (standin_cuda.h): CUPTI's functions that the CUDA tool
// calls, with CUPTI's own declarations (cupti.h), and a synthetic device behind them.
// Every piece of state lives in one object that is never freed: the tool flushes from an
// atexit handler and CUPTI's worker thread may still run then.

#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

#include "tests/gpu/cupti_standin/standin_cuda.h"

struct CUpti_Subscriber_st {
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
};

namespace {

// The device's clock: CLOCK_MONOTONIC shifted, so the tool has to map it.
constexpr uint64_t kDeviceClockOffsetNs = 7'000'000'000'000ull;
constexpr uint64_t kLaunchLatencyNs = 2000;  // from the call to the kernel's start
constexpr uint64_t kCopyBytesPerNs = 16;     // 16 GB/s
constexpr uint32_t kDeviceId = 0;
constexpr uint32_t kStreamId = 7;
constexpr size_t kRecordAlign = 8;

uint64_t host_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t device_ns() { return host_ns() + kDeviceClockOffsetNs; }

using Record = std::variant<CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, CUpti_ActivityDevice5>;

size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return sizeof(CUpti_ActivityDevice5);
    default:
      return 0;
  }
}

size_t aligned(size_t n) { return (n + kRecordAlign - 1) / kRecordAlign * kRecordAlign; }

struct Names {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  const char* name;
};

// The callback ids this stand-in fires, with CUPTI's names for them (enough for the
// tool's name-based choice of what to watch).
constexpr Names kNames[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel_v7000"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch_v10000"},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel"},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2"},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2"},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize"},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize"},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch"},
};

struct State {
  // Callback API.
  std::mutex subscriber_mutex;
  CUpti_Subscriber_st subscriber;
  bool subscribed = false;
  std::atomic<bool> runtime_enabled[CUPTI_RUNTIME_TRACE_CBID_SIZE] = {};
  std::atomic<bool> driver_enabled[CUPTI_DRIVER_TRACE_CBID_SIZE] = {};
  std::atomic<uint32_t> next_correlation{1};

  // Activity API.
  std::atomic<bool> kernels_on{false}, copies_on{false};
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  std::atomic<uint32_t> flush_period_ms{0};
  std::mutex records_mutex;  // pending and the device's timeline
  std::mutex delivery_mutex;  // held while records are handed to the tool
  std::vector<Record> pending;
  uint64_t device_busy_until = 0;  // device clock
  uint32_t next_grid_id = 1;
  std::once_flag worker_once;
};

State& state() {
  static State* s = new State;  // never freed (see the top)
  return *s;
}

// Hands every pending record to the tool in buffers it provides (what CUPTI's worker does
// when a buffer is due, and cuptiActivityFlushAll at once).
void deliver() {
  State& s = state();
  // One delivery at a time: cuptiActivityFlushAll returns only after a buffer the worker
  // is handing over has reached the tool (the tool closes its file right after).
  std::lock_guard delivering(s.delivery_mutex);
  std::vector<Record> records;
  {
    std::lock_guard lock(s.records_mutex);
    records.swap(s.pending);
  }
  size_t next = 0;
  while (next < records.size() && s.request != nullptr && s.complete != nullptr) {
    uint8_t* buffer = nullptr;
    size_t size = 0, max_records = 0;
    s.request(&buffer, &size, &max_records);
    if (buffer == nullptr || size == 0) return;  // CUPTI would drop (and count) them
    size_t used = 0;
    while (next < records.size()) {
      const size_t n = std::visit([](const auto& r) { return sizeof r; }, records[next]);
      if (used + aligned(n) > size) break;
      std::visit([&](const auto& r) { std::memcpy(buffer + used, &r, sizeof r); }, records[next]);
      used += aligned(n);
      ++next;
    }
    s.complete(nullptr, 0, buffer, size, used);
  }
}

void worker() {
  for (;;) {
    const uint32_t period = state().flush_period_ms.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(period > 0 ? period : 10));
    deliver();
  }
}

void add_record(Record r) {
  State& s = state();
  std::lock_guard lock(s.records_mutex);
  s.pending.push_back(r);
}

// One API call as CUPTI reports it: the enabled callback at entry, `body`, the callback at
// exit. Returns the call's correlation id.
template <typename Body>
uint32_t api_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* name,
                  Body&& body) {
  State& s = state();
  const uint32_t id = s.next_correlation.fetch_add(1);
  const bool on = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? s.runtime_enabled[cbid].load()
                                                         : s.driver_enabled[cbid].load();
  int result = 0;  // cudaSuccess / CUDA_SUCCESS
  CUpti_CallbackData data{};
  data.functionName = name;
  data.functionReturnValue = &result;
  data.correlationId = id;
  if (on) {
    data.callbackSite = CUPTI_API_ENTER;
    s.subscriber.callback(s.subscriber.userdata, domain, cbid, &data);
  }
  body(id);
  if (on && (domain == CUPTI_CB_DOMAIN_RUNTIME_API ? s.runtime_enabled[cbid].load()
                                                   : s.driver_enabled[cbid].load())) {
    data.callbackSite = CUPTI_API_EXIT;
    s.subscriber.callback(s.subscriber.userdata, domain, cbid, &data);
  }
  return id;
}

// Device times of a piece of work of `ns` queued now: after everything before it.
std::pair<uint64_t, uint64_t> schedule_locked(State& s, uint64_t ns) {
  const uint64_t start = std::max(device_ns() + kLaunchLatencyNs, s.device_busy_until);
  s.device_busy_until = start + ns;
  return {start, start + ns};
}

// Spins until the device has run everything queued: CUDA's default for a process with
// fewer contexts than cores, and a wait that is CPU time, which a profiler must not
// count as work of the line that waits.
void wait_for_device() {
  uint64_t until = 0;
  {
    std::lock_guard lock(state().records_mutex);
    until = state().device_busy_until;
  }
  while (device_ns() < until) {
  }
}

}  // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  *str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "stand-in CUPTI error";
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                    void* userdata) {
  State& s = state();
  std::lock_guard lock(s.subscriber_mutex);
  if (s.subscribed) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  s.subscriber = {callback, userdata};
  s.subscribed = true;
  *subscriber = &s.subscriber;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  State& s = state();
  std::lock_guard lock(s.subscriber_mutex);
  if (!s.subscribed || subscriber != &s.subscriber) return CUPTI_ERROR_INVALID_PARAMETER;
  s.subscribed = false;
  for (auto& e : s.runtime_enabled) e = false;
  for (auto& e : s.driver_enabled) e = false;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char** name) {
  for (const auto& n : kNames) {
    if (n.domain == domain && n.cbid == cbid) {
      *name = n.name;
      return CUPTI_SUCCESS;
    }
  }
  return CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  State& s = state();
  if (subscriber != &s.subscriber) return CUPTI_ERROR_INVALID_PARAMETER;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE) {
    s.runtime_enabled[cbid] = enable != 0;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE) {
    s.driver_enabled[cbid] = enable != 0;
  } else {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete) {
  State& s = state();
  s.request = request;
  s.complete = complete;
  std::call_once(s.worker_once, [] { std::thread(worker).detach(); });
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  State& s = state();
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      s.kernels_on = true;
      return CUPTI_SUCCESS;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      s.copies_on = true;
      return CUPTI_SUCCESS;
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      CUpti_ActivityDevice5 d{};
      d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
      d.id = kDeviceId;
      d.name = "Stand-in GPU";
      add_record(d);
      return CUPTI_SUCCESS;
    }
    default:
      return CUPTI_ERROR_NOT_SUPPORTED;
  }
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  State& s = state();
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) s.kernels_on = false;
  if (kind == CUPTI_ACTIVITY_KIND_MEMCPY) s.copies_on = false;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t time) {
  state().flush_period_ms = time;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) {
  deliver();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid,
                                                CUpti_Activity** record) {
  size_t at = 0;
  if (*record != nullptr) {
    at = static_cast<size_t>(reinterpret_cast<uint8_t*>(*record) - buffer) +
         aligned(record_size((*record)->kind));
  }
  if (at + sizeof(CUpti_Activity) > valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(buffer + at);
  const size_t size = record_size((*record)->kind);
  if (size == 0 || at + size > valid) return CUPTI_ERROR_INVALID_KIND;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  *timestamp = device_ns();
  return CUPTI_SUCCESS;
}

int standin_cuda_init() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr || *path == '\0') return 0;
  void* tool = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  auto* init = tool != nullptr ? reinterpret_cast<int (*)()>(dlsym(tool, "InitializeInjection"))
                               : nullptr;
  if (init == nullptr) {
    std::fprintf(stderr, "standin-cuda: %s\n", dlerror());
    return -1;
  }
  init();
  return 0;
}

namespace {

// One kernel on the device's timeline, and its record when kernels are traced.
void run_kernel(uint32_t correlation_id, const char* mangled_name, uint32_t grid, uint32_t block,
                uint64_t duration_ns) {
  State& s = state();
  std::lock_guard lock(s.records_mutex);
  const auto [start, end] = schedule_locked(s, duration_ns);
  const uint32_t grid_id = s.next_grid_id++;
  if (!s.kernels_on) return;
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.deviceId = kDeviceId;
  k.streamId = kStreamId;
  k.gridId = grid_id;
  k.gridX = static_cast<int32_t>(grid);
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = static_cast<int32_t>(block);
  k.blockY = 1;
  k.blockZ = 1;
  k.correlationId = correlation_id;
  k.name = mangled_name;
  s.pending.push_back(k);
}

}  // namespace

uint32_t standin_cuda_launch(const char* mangled_name, uint32_t grid, uint32_t block,
                             uint64_t duration_ns) {
  return api_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                  "cudaLaunchKernel_v7000", [&](uint32_t) {
                    api_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                             "cuLaunchKernel", [&](uint32_t id) {
                               run_kernel(id, mangled_name, grid, block, duration_ns);
                             });
                  });
}

void standin_cuda_graph_launch(const char* const* mangled_names, size_t kernels,
                               uint64_t duration_ns) {
  api_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
           "cudaGraphLaunch_v10000", [&](uint32_t) {
             api_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
                      "cuGraphLaunch", [&](uint32_t id) {
                        // Every node's record carries the launch's correlation id.
                        for (size_t i = 0; i < kernels; ++i) {
                          run_kernel(id, mangled_names[i], 1, 32, duration_ns);
                        }
                      });
           });
}

void standin_cuda_memcpy(size_t bytes, bool to_device) {
  api_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
           "cudaMemcpy_v3020", [&](uint32_t) {
             const CUpti_CallbackId cbid = to_device ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2
                                                     : CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2;
             api_call(CUPTI_CB_DOMAIN_DRIVER_API, cbid,
                      to_device ? "cuMemcpyHtoD_v2" : "cuMemcpyDtoH_v2", [&](uint32_t id) {
                        {
                          State& s = state();
                          std::lock_guard lock(s.records_mutex);
                          const auto [start, end] =
                              schedule_locked(s, std::max<uint64_t>(1, bytes / kCopyBytesPerNs));
                          if (s.copies_on) {
                            CUpti_ActivityMemcpy6 m{};
                            m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
                            m.copyKind = to_device ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD
                                                   : CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
                            m.bytes = bytes;
                            m.start = start;
                            m.end = end;
                            m.deviceId = kDeviceId;
                            m.streamId = kStreamId;
                            m.correlationId = id;
                            s.pending.push_back(m);
                          }
                        }
                        wait_for_device();  // a synchronous copy returns when it is done
                      });
           });
}

void standin_cuda_synchronize() {
  api_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
           "cudaDeviceSynchronize_v3020", [](uint32_t) {
             api_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
                      "cuCtxSynchronize", [](uint32_t) { wait_for_device(); });
           });
}

}  // extern "C"
