// libcprof-cuda.so: the CUDA tool. The CUDA driver dlopens the library named in
// CUDA_INJECTION64_PATH during cuInit and calls its InitializeInjection, on the thread
// that initializes CUDA, before any kernel can be launched. Only that function is
// exported (exports.map); CUPTI comes from libcupti, the driver is never linked.

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "gpu/cuda/cupti_tracer.h"

namespace cprof::gpu::cuda {
namespace {

// Never freed: CUPTI may still call back into it from its threads during exit.
CuptiTracer* g_tracer = nullptr;
std::once_flag g_once;

void stop_at_exit() {
  // Registered after the CUDA runtime's own exit handler (which ran before cuInit), so
  // this runs first, while contexts still exist to flush.
  if (g_tracer != nullptr) g_tracer->stop();
}

void initialize() {
  auto* t = new CuptiTracer;
  if (const std::string err = t->start(); !err.empty()) {
    std::fprintf(stderr, "cprof-cuda: %s; GPU activity is not recorded\n", err.c_str());
    delete t;
    return;
  }
  g_tracer = t;
  std::atexit(stop_at_exit);
}

}  // namespace
}  // namespace cprof::gpu::cuda

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  // cuInit may run more than once per process (one call per thread can race into it).
  std::call_once(cprof::gpu::cuda::g_once, cprof::gpu::cuda::initialize);
  // Success either way: a tool that cannot trace must not make cuInit fail.
  return 1;
}
