// A program that uses the stand-in HSA runtime (tests/gpu/hsa_standin, built here as a
// shared library named like the real libhsa-runtime64) the way an application uses the
// real one: hsa_init loads every tool HSA_TOOLS_LIB names, then it launches kernels from
// two functions of its own and copies a buffer, waiting for each. Run under
// `sample-run --gpu` by gpu_e2e_test.cpp, so causal-report has a real GPU file with real
// launch stacks to attribute.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/gpu/hsa_standin/standin.h"

using cprof::gpu::standin::dispatch_packet;
using cprof::gpu::standin::StandinRuntime;
using cprof::gpu::standin::submit_packet;

struct Gpu {
  const CoreApiTable* core;
  hsa_queue_t* queue;
  hsa_signal_t done;
};

namespace {

constexpr uint64_t kSquare = 0xA000;
constexpr uint64_t kScale = 0xB000;

void wait(const Gpu& g) {
  g.core->hsa_signal_wait_scacquire_fn(g.done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                       HSA_WAIT_STATE_BLOCKED);
}

}  // namespace

// The launch sites the report must find: each calls the runtime itself (the submission's
// doorbell is where the tool takes the stack). Never inlined, so they stay on the stack.
extern "C" __attribute__((noinline)) void launch_square(const Gpu& g) {
  g.core->hsa_signal_store_relaxed_fn(g.done, 1);
  submit_packet(*g.core, g.queue, dispatch_packet(kSquare, 4096, 256, g.done));
  wait(g);
}

extern "C" __attribute__((noinline)) void launch_scale(const Gpu& g) {
  g.core->hsa_signal_store_relaxed_fn(g.done, 1);
  submit_packet(*g.core, g.queue, dispatch_packet(kScale, 1024, 64, g.done));
  wait(g);
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  StandinRuntime rt;
  if (std::string error; !rt.load_tools_from_environment(error)) {
    std::fprintf(stderr, "gpu_standin_app: %s\n", error.c_str());
    return 1;
  }
  // 50 us and 20 us kernels (ticks of the stand-in's 100 MHz clock).
  const hsa_executable_t exe = rt.create_executable(
      {{"_Z6squarePfi.kd", kSquare, 5000}, {"_ZN2ns5scaleEPdd.kd", kScale, 2000}});
  rt.core().hsa_executable_freeze_fn(exe, nullptr);
  Gpu g{&rt.core(), nullptr, {}};
  rt.core().hsa_queue_create_fn(rt.gpu_agent(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0,
                                &g.queue);
  rt.core().hsa_signal_create_fn(1, 0, nullptr, &g.done);
  for (int i = 0; i < rounds; ++i) {
    launch_square(g);
    launch_square(g);
    launch_scale(g);
  }
  std::vector<char> host(1 << 20), device(1 << 20);
  rt.core().hsa_signal_store_relaxed_fn(g.done, 1);
  rt.amd().hsa_amd_memory_async_copy_fn(device.data(), rt.gpu_agent(), host.data(), rt.cpu_agent(),
                                        host.size(), 0, nullptr, g.done);
  rt.core().hsa_signal_wait_scacquire_fn(g.done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                         HSA_WAIT_STATE_BLOCKED);
  rt.wait_idle();
  rt.unload_tool();
  std::printf("gpu_standin_app: %d rounds\n", rounds);
  return 0;
}
