// The causal runtime's side of peer_wait_api.h: the peer-wait rules of causal/delays.h on
// the calling thread, and the count of waits said at the end of the run.

#include "causal/runtime/peer_wait.h"

#include <cstdio>

#include "causal/runtime/calling_thread.h"
#include "causal/runtime/peer_wait_api.h"

namespace cprof::causal {
namespace {

std::atomic<uint64_t> g_waits{0};
std::atomic<uint64_t> g_exchanges{0};    // delay counts exchanged across hosts
std::atomic<uint64_t> g_import_owed{0};  // of which left the waiting thread a debt

void api_begin() {
  const CallingThread c;
  if (c && !DelayAccounting::in_peer_wait(c.t->delay))
    g_waits.fetch_add(1, std::memory_order_relaxed);
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.peer_wait_begin(t); });
}

void api_end() {
  CallingThread().apply([](DelayAccounting& d, ThreadDelay& t) { d.peer_wait_end(t); });
}

void api_exchange_out(uint64_t values[CPROF_EXCHANGED_VALUES]) {
  CausalRuntime* rt = CausalRuntime::instance();
  const JobShared* job = rt != nullptr ? rt->job_shared() : nullptr;
  values[0] = rt != nullptr ? rt->delays().global_ns() : 0;
  values[1] = job != nullptr ? job->progress_started.load(std::memory_order_acquire) : 0;
}

void api_exchange_in(const uint64_t values[CPROF_EXCHANGED_VALUES], uint64_t waited_ns) {
  const CallingThread c;
  if (JobShared* job = c.rt != nullptr ? c.rt->job_shared() : nullptr; job && values[1] != 0) {
    job->progress_started.store(1, std::memory_order_release);
  }
  c.apply([&](DelayAccounting& d, ThreadDelay& t) {
    if (d.import_job_count(t, values[0], waited_ns) > 0) {
      g_import_owed.fetch_add(1, std::memory_order_relaxed);
    }
  });
  g_exchanges.fetch_add(1, std::memory_order_relaxed);
}

constexpr cprof_peer_wait_api kApi{2,           &api_begin,        &api_end,
                                   &wake_other, &api_exchange_out, &api_exchange_in};

}  // namespace

std::string peer_wait_summary() {
  const uint64_t waits = g_waits.load(std::memory_order_relaxed);
  if (waits == 0) return "";
  char text[160];
  std::snprintf(text, sizeof text,
                "MPI waits seen: %llu (blocked: their samples are not counted as CPU work)",
                static_cast<unsigned long long>(waits));
  std::string out = text;
  if (const uint64_t exchanges = g_exchanges.load(std::memory_order_relaxed); exchanges > 0) {
    std::snprintf(text, sizeof text,
                  "; delay counts exchanged across hosts at %llu collectives (%llu left a debt "
                  "the wait did not cover)",
                  static_cast<unsigned long long>(exchanges),
                  static_cast<unsigned long long>(g_import_owed.load(std::memory_order_relaxed)));
    out += text;
  }
  return out;
}

}  // namespace cprof::causal

extern "C" __attribute__((visibility("default"))) const cprof_peer_wait_api*
cprof_peer_wait_api_v1() {
  return &cprof::causal::kApi;
}
