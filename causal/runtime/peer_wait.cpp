// The causal runtime's side of peer_wait_api.h: the peer-wait rules of causal/delays.h on
// the calling thread, and the count of waits said at the end of the run.

#include "causal/runtime/peer_wait.h"

#include <cstdio>

#include "causal/runtime/calling_thread.h"
#include "causal/runtime/peer_wait_api.h"

namespace cprof::causal {
namespace {

std::atomic<uint64_t> g_waits{0};

void api_begin() {
  const CallingThread c;
  if (c && !DelayAccounting::in_peer_wait(c.t->delay))
    g_waits.fetch_add(1, std::memory_order_relaxed);
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.peer_wait_begin(t); });
}

void api_end() {
  CallingThread().apply([](DelayAccounting& d, ThreadDelay& t) { d.peer_wait_end(t); });
}

constexpr cprof_peer_wait_api kApi{1, &api_begin, &api_end, &wake_other};

}  // namespace

std::string peer_wait_summary() {
  const uint64_t waits = g_waits.load(std::memory_order_relaxed);
  if (waits == 0) return "";
  char text[160];
  std::snprintf(text, sizeof text,
                "MPI waits seen: %llu (blocked: their samples are not counted as CPU work)",
                static_cast<unsigned long long>(waits));
  return text;
}

}  // namespace cprof::causal

extern "C" __attribute__((visibility("default"))) const cprof_peer_wait_api*
cprof_peer_wait_api_v1() {
  return &cprof::causal::kApi;
}
