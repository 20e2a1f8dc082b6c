// A program that waits for the GPU (the stand-in HSA runtime in real-time mode: kernels
// take their duration in real time, active waits spin), run under `causal-run --gpu` by
// gpu_causal_e2e_test.cpp. The main thread launches kernels and waits for each in
// wait_for_gpu, an active (spinning) hsa_signal_wait_scacquire, called from the line
// marked LINE_WAIT; between kernels it does CPU work of its own (LINE_WORK) and counts a
// progress point.
//   gpu_wait_app ROUNDS [KERNEL_US] [EXIT_STATUS] [CHILDREN]
// CHILDREN: then forks that many children that exit (fork_children.h), before the tool
// is unloaded.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "include/causal/progress.h"
#include "tests/gpu/fork_children.h"
#include "tests/gpu/hsa_standin/standin.h"

using cprof::gpu::standin::dispatch_packet;
using cprof::gpu::standin::StandinRuntime;
using cprof::gpu::standin::submit_packet;

namespace {

constexpr uint64_t kKernel = 0xC000;
volatile uint64_t g_sink = 0;

struct Gpu {
  const CoreApiTable* core;
  hsa_queue_t* queue;
  hsa_signal_t done;
};

__attribute__((noinline)) void launch(const Gpu& g) {
  g.core->hsa_signal_store_relaxed_fn(g.done, 1);
  submit_packet(*g.core, g.queue, dispatch_packet(kKernel, 1024, 64, g.done));
}

__attribute__((noinline)) void wait_for_gpu(const Gpu& g) {
  g.core->hsa_signal_wait_scacquire_fn(g.done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                       HSA_WAIT_STATE_ACTIVE);
}

__attribute__((noinline)) void cpu_work() {
  uint64_t x = g_sink;
  for (int i = 0; i < 200000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  g_sink = x;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 100;
  const uint64_t kernel_us = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2000;
  const int status = argc > 3 ? std::atoi(argv[3]) : 0;
  const int children = argc > 4 ? std::atoi(argv[4]) : 0;
  StandinRuntime rt;
  if (std::string error; !rt.load_tools_from_environment(error)) {
    std::fprintf(stderr, "gpu_wait_app: %s\n", error.c_str());
    return 1;
  }
  rt.set_real_time(true);
  const uint64_t ticks = kernel_us * (StandinRuntime::kSystemFrequency / 1000000);
  const hsa_executable_t exe = rt.create_executable({{"_Z4waitv.kd", kKernel, ticks}});
  rt.core().hsa_executable_freeze_fn(exe, nullptr);
  Gpu g{&rt.core(), nullptr, {}};
  rt.core().hsa_queue_create_fn(rt.gpu_agent(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0,
                                &g.queue);
  rt.core().hsa_signal_create_fn(1, 0, nullptr, &g.done);
  for (int i = 0; i < rounds; ++i) {
    launch(g);
    wait_for_gpu(g);  // LINE_WAIT
    cpu_work();       // LINE_WORK
    CAUSAL_PROGRESS;
  }
  rt.wait_idle();
  if (children > 0) fork_children(children);
  rt.unload_tool();
  std::printf("gpu_wait_app: %d rounds of %llu us\n", rounds,
              static_cast<unsigned long long>(kernel_us));
  return status;
}
