// Cost added per kernel dispatch by libcprof-hsa, measured on the stand-in HSA runtime.
//
//   hsa_dispatch_bench [DISPATCHES] [STACK_DEPTH]
//
// A "program" launches DISPATCHES kernels from STACK_DEPTH frames deep, each with its own
// completion signal, waiting for each one (a launch-heavy program), four ways: without
// the tool, with the tool but no launch stacks (CPROF_GPU_STACKS=0), with the tool, and
// with the tool tracing windows over 10% of the run (CPROF_GPU_DUTY=10, --gpu-duty 10).
// Reported per dispatch: the submitting thread's time in the submit call (what the
// program feels at launch) and the round trip from submit to the program's signal firing
// (which adds the tool's completion handler in front of the program's signal).
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/gpu/hsa_standin/standin.h"

using cprof::gpu::standin::dispatch_packet;
using cprof::gpu::standin::StandinRuntime;
using cprof::gpu::standin::submit_packet;

namespace {

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

struct Result {
  double submit_ns = 0;     // median over rounds of mean submit-call time
  double roundtrip_ns = 0;  // median over rounds of mean submit-to-signal time
};

struct Run {
  const CoreApiTable* core;
  hsa_queue_t* queue;
  hsa_signal_t signal;
  uint64_t n;
  uint64_t submit_total = 0;
  uint64_t total = 0;
};

__attribute__((noinline)) void launch_loop(Run& r) {
  const uint64_t begin = now_ns();
  for (uint64_t i = 0; i < r.n; ++i) {
    r.core->hsa_signal_store_relaxed_fn(r.signal, 1);
    const auto p = dispatch_packet(0xA000, 64, 64, r.signal);
    const uint64_t t0 = now_ns();
    submit_packet(*r.core, r.queue, p);
    r.submit_total += now_ns() - t0;
    r.core->hsa_signal_wait_scacquire_fn(r.signal, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                         HSA_WAIT_STATE_ACTIVE);
  }
  r.total = now_ns() - begin;
  asm volatile("" ::: "memory");
}

// Recurses `depth` frames before launching, so the tool has a realistic stack to unwind.
__attribute__((noinline)) void at_depth(Run& r, int depth) {
  if (depth <= 0) {
    launch_loop(r);
  } else {
    at_depth(r, depth - 1);
  }
  asm volatile("" ::: "memory");
}

Result measure(const char* tool, const char* stacks, const char* duty, uint64_t n, int depth) {
  StandinRuntime rt;
  if (tool != nullptr) {
    setenv("CPROF_GPU_STACKS", stacks, 1);
    setenv("CPROF_GPU_DUTY", duty, 1);
    std::string error;
    if (!rt.load_tool(tool, error)) {
      std::fprintf(stderr, "cannot load %s: %s\n", tool, error.c_str());
      std::exit(1);
    }
  }
  const hsa_executable_t exe = rt.create_executable({{"_Z6squarePfi.kd", 0xA000, 1}});
  rt.core().hsa_executable_freeze_fn(exe, nullptr);
  hsa_queue_t* q = nullptr;
  rt.core().hsa_queue_create_fn(rt.gpu_agent(), 1024, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0,
                                0, &q);
  hsa_signal_t s{};
  rt.core().hsa_signal_create_fn(1, 0, nullptr, &s);
  std::vector<double> submit, total;
  Run warm{&rt.core(), q, s, n / 10 + 1};
  at_depth(warm, depth);
  for (int round = 0; round < 5; ++round) {
    Run r{&rt.core(), q, s, n};
    at_depth(r, depth);
    submit.push_back(static_cast<double>(r.submit_total) / static_cast<double>(n));
    total.push_back(static_cast<double>(r.total) / static_cast<double>(n));
  }
  rt.wait_idle();
  if (tool != nullptr) rt.unload_tool();
  std::sort(submit.begin(), submit.end());
  std::sort(total.begin(), total.end());
  return {submit[submit.size() / 2], total[total.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
  const int depth = argc > 2 ? std::atoi(argv[2]) : 20;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cprof-hsa-bench." + std::to_string(getpid()));
  setenv("CPROF_OUTPUT_DIR", dir.c_str(), 1);
  const Result base = measure(nullptr, "1", "100", n, depth);
  const Result nostack = measure(CPROF_HSA_TOOL_PATH, "0", "100", n, depth);
  const Result full = measure(CPROF_HSA_TOOL_PATH, "1", "100", n, depth);
  const Result windows = measure(CPROF_HSA_TOOL_PATH, "1", "10", n, depth);
  std::filesystem::remove_all(dir);
  std::printf("%llu dispatches, launched %d frames deep; per dispatch, median of 5 rounds\n",
              static_cast<unsigned long long>(n), depth);
  std::printf("%-26s %12s %12s %14s %14s\n", "", "submit ns", "added ns", "round trip ns",
              "added ns");
  auto row = [&](const char* name, const Result& r) {
    std::printf("%-26s %12.0f %12.0f %14.0f %14.0f\n", name, r.submit_ns,
                r.submit_ns - base.submit_ns, r.roundtrip_ns, r.roundtrip_ns - base.roundtrip_ns);
  };
  row("no tool", base);
  row("tool, no launch stacks", nostack);
  row("tool, launch stacks", full);
  row("tool, stacks, 10% windows", windows);
  return 0;
}
