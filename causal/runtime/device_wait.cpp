// The causal runtime's side of device_wait_api.h: begin/end apply the device-wait rules of
// causal/delays.h to the calling thread and count the waits.

#include "causal/runtime/device_wait.h"

#include <cstdio>
#include <ctime>

#include "causal/runtime/calling_thread.h"
#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/device_wait_api.h"

namespace cprof::causal {
namespace {

std::atomic<uint64_t> g_waits{0};
std::atomic<uint64_t> g_wait_ns{0};
std::atomic<uint64_t> g_samples{0};

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

void api_begin() {
  const CallingThread c;
  if (c && !DelayAccounting::in_device_wait(c.t->delay)) c.t->device_wait_start_ns = now_ns();
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.device_wait_begin(t); });
}

void api_end() {
  const CallingThread c;
  if (!c || !DelayAccounting::in_device_wait(c.t->delay)) return;
  if (c.t->delay.device_waits.load(std::memory_order_relaxed) == 1) {  // the outermost
    g_waits.fetch_add(1, std::memory_order_relaxed);
    g_wait_ns.fetch_add(now_ns() - c.t->device_wait_start_ns, std::memory_order_relaxed);
  }
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.device_wait_end(t); });
}

constexpr cprof_device_wait_api kApi{1, &api_begin, &api_end};

}  // namespace

DeviceWaitCounts device_wait_counts() {
  return DeviceWaitCounts{g_waits.load(), g_wait_ns.load(), g_samples.load()};
}

void note_device_wait_sample() { g_samples.fetch_add(1, std::memory_order_relaxed); }

std::string device_wait_summary() {
  const DeviceWaitCounts c = device_wait_counts();
  if (c.waits == 0 && c.samples == 0) return "";
  char text[200];
  std::snprintf(text, sizeof text,
                "GPU waits seen: %llu (%.3f ms blocked; %llu samples inside them not counted "
                "as CPU work)",
                static_cast<unsigned long long>(c.waits), static_cast<double>(c.wait_ns) / 1e6,
                static_cast<unsigned long long>(c.samples));
  return text;
}

}  // namespace cprof::causal

extern "C" __attribute__((visibility("default"))) const cprof_device_wait_api*
cprof_device_wait_api_v1() {
  return &cprof::causal::kApi;
}
