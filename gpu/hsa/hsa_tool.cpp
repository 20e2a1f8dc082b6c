// libcprof-hsa.so: the HSA tools library. The HSA runtime loads every library named in
// HSA_TOOLS_LIB (space-separated) during hsa_init and calls its OnLoad with the runtime's
// API table; the tool replaces entries of that table, so every call the program makes
// through the runtime's exported functions reaches the tool first. OnUnload is called
// from hsa_shut_down. Only these two functions are exported (exports.map).

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "gpu/hsa/hsa_api.h"
#include "gpu/hsa/signal_wait.h"
#include "gpu/hsa/tracer.h"

namespace cprof::gpu::hsa {
namespace {

// The replacements are plain C function pointers with no context: they find the tracer
// here. A tracer is never freed: the runtime's completion threads may still call into it
// after OnUnload (their signals are still forwarded).
std::atomic<Tracer*> g_tracer{nullptr};
std::once_flag g_atexit_once;

Tracer& tracer() { return *g_tracer.load(std::memory_order_acquire); }

hsa_status_t hook_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                          void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                          uint32_t private_segment_size, uint32_t group_segment_size,
                          hsa_queue_t** queue) {
  return tracer().queue_create(agent, size, type, callback, data, private_segment_size,
                               group_segment_size, queue);
}

hsa_status_t hook_executable_freeze(hsa_executable_t exe, const char* options) {
  return tracer().executable_freeze(exe, options);
}

hsa_status_t hook_executable_destroy(hsa_executable_t exe) { return tracer().executable_destroy(exe); }

hsa_status_t hook_memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                               hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                               const hsa_signal_t* dep_signals, hsa_signal_t completion) {
  return tracer().memory_async_copy(dst, dst_agent, src, src_agent, size, num_dep_signals,
                                    dep_signals, completion);
}

hsa_status_t hook_memory_async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset,
                                         const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset,
                                         const hsa_dim3_t* range, hsa_agent_t copy_agent,
                                         hsa_amd_copy_direction_t dir, uint32_t num_dep_signals,
                                         const hsa_signal_t* dep_signals, hsa_signal_t completion) {
  return tracer().memory_async_copy_rect(dst, dst_offset, src, src_offset, range, copy_agent, dir,
                                         num_dep_signals, dep_signals, completion);
}

hsa_status_t hook_async_copy_enable(bool enable) { return tracer().async_copy_enable(enable); }

void stop_at_exit() {
  // Programs often exit without hsa_shut_down: write what was recorded.
  if (Tracer* t = g_tracer.load(std::memory_order_acquire)) t->stop();
}

}  // namespace

void Tracer::install(HsaApiTable* table) {
  CoreApiTable* core = table->core_;
  AmdExtTable* amd = table->amd_ext_;
  core->hsa_queue_create_fn = hook_queue_create;
  core->hsa_executable_freeze_fn = hook_executable_freeze;
  core->hsa_executable_destroy_fn = hook_executable_destroy;
  if (amd->hsa_amd_memory_async_copy_fn != nullptr) {
    amd->hsa_amd_memory_async_copy_fn = hook_memory_async_copy;
  }
  if (has_copy_rect()) amd->hsa_amd_memory_async_copy_rect_fn = hook_memory_async_copy_rect;
  if (amd->hsa_amd_profiling_async_copy_enable_fn != nullptr) {
    amd->hsa_amd_profiling_async_copy_enable_fn = hook_async_copy_enable;
  }
  // Under causal-run: the program's signal waits count as blocked (signal_wait.h).
  install_signal_waits(table);
}

}  // namespace cprof::gpu::hsa

extern "C" {

__attribute__((visibility("default"))) bool OnLoad(HsaApiTable* table, uint64_t runtime_version,
                                                   uint64_t failed_tool_count,
                                                   const char* const* failed_tool_names) {
  using cprof::gpu::hsa::Tracer;
  (void)runtime_version;
  (void)failed_tool_count;
  (void)failed_tool_names;
  if (const std::string why = Tracer::check_table(table); !why.empty()) {
    std::fprintf(stderr, "cprof-hsa: %s; GPU activity is not recorded\n", why.c_str());
    return false;
  }
  auto* t = new Tracer(*table);
  if (const std::string err = t->start(); !err.empty()) {
    std::fprintf(stderr, "cprof-hsa: %s; GPU activity is not recorded\n", err.c_str());
    delete t;
    return false;
  }
  // A second OnLoad (hsa_init after hsa_shut_down) gets a new tracer and file; the old
  // one stays alive for late completions.
  cprof::gpu::hsa::g_tracer.store(t, std::memory_order_release);
  t->install(table);
  std::call_once(cprof::gpu::hsa::g_atexit_once,
                 [] { std::atexit(cprof::gpu::hsa::stop_at_exit); });
  return true;
}

__attribute__((visibility("default"))) void OnUnload() {
  if (cprof::gpu::hsa::Tracer* t = cprof::gpu::hsa::g_tracer.load(std::memory_order_acquire)) t->stop();
}

}  // extern "C"
