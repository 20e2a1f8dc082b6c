// cuda_launches (tests/gpu/cuda/cuda_launches.cu) on the stand-in CUDA and CUPTI
// (tests/gpu/cupti_standin), for the CUDA tool's end-to-end tests without a GPU: two
// named kernels launched from two call sites (5 and 3 times), a host-to-device copy of
// 1 MiB and a device-to-host copy of 512 KiB, each from its own function.
//   cuda_standin_app                 prints "cuda_standin_app: ok", exit 0
//   cuda_standin_app --loop MS [US]  launches kernels of US µs (default 20) from launch_loop
//                                    for MS ms, synchronizing after every 10, then prints
//                                    how many
//   cuda_standin_app --exit N        the default run, then exit status N
//   cuda_standin_app --graph         launches a graph of three kernels (graph_a, graph_b,
//                                    graph_c) twice from launch_graph, then synchronizes
//   cuda_standin_app --threads N MS  N threads launch for MS ms each, thread i kernel_i
//                                    from launch_on_thread, then each prints
//                                    "thread i tid T launches L"
//   cuda_standin_app --sync N US     N rounds of: a kernel of US µs, a synchronize that
//                                    spins until it is done (LINE_SYNC), CPU work of
//                                    about the same length (LINE_WORK)
//   cuda_standin_app --fork N        the default run, then N children forked one after
//                                    the other, each living 30 ms and exiting; prints
//                                    "children: N ended, H hung" (a hung one is killed
//                                    after 5 s)
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "include/causal/progress.h"
#include "tests/gpu/busy_work.h"
#include "tests/gpu/cupti_standin/standin_cuda.h"
#include "tests/gpu/fork_children.h"

namespace {

constexpr uint32_t kBlocks = (1u << 18) / 256;

// Counting after the launch keeps the launch from being a tail call: the launching
// function's frame stays on the stack, as in most real code.
volatile int g_launches = 0;

}  // namespace

__attribute__((noinline)) void launch_scale() {
  standin_cuda_launch("_Z12scale_kernelPffi", kBlocks, 256, 3000);
  g_launches = g_launches + 1;
}

__attribute__((noinline)) void launch_offset() {
  standin_cuda_launch("_Z13offset_kernelPffi", kBlocks, 256, 2000);
  g_launches = g_launches + 1;
}

__attribute__((noinline)) void copy_in() {
  standin_cuda_memcpy(size_t{1} << 20, true);
  g_launches = g_launches + 1;
}

__attribute__((noinline)) void copy_out() {
  standin_cuda_memcpy(size_t{1} << 19, false);
  g_launches = g_launches + 1;
}

__attribute__((noinline)) long launch_loop(long ms, long kernel_us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  const auto kernel_ns = static_cast<uint64_t>(kernel_us) * 1000;
  long n = 0;
  while (std::chrono::steady_clock::now() < until) {
    standin_cuda_launch("_Z11loop_kernelv", 1, 32, kernel_ns);
    if (++n % 10 == 0) standin_cuda_synchronize();  // cudaStreamSynchronize in cuda_launches
  }
  standin_cuda_synchronize();
  return n;
}

__attribute__((noinline)) double sync_rounds(long rounds, long us) {
  double sum = 0;
  for (long r = 0; r < rounds; ++r) {
    standin_cuda_launch("_Z11wait_kernely", 1, 32, static_cast<uint64_t>(us) * 1000);
    standin_cuda_synchronize();           // LINE_SYNC
    sum += cprof::testing::cpu_work(us);  // LINE_WORK
    CAUSAL_PROGRESS;  // experiments begin at the first round (docs/causal.md, Experiments)
  }
  return sum;
}

__attribute__((noinline)) void launch_graph() {
  static const char* const kNodes[] = {"_Z7graph_av", "_Z7graph_bv", "_Z7graph_cv"};
  standin_cuda_graph_launch(kNodes, 3, 1000);
  g_launches = g_launches + 1;
}

struct ThreadRun {
  long tid = 0;
  long launches = 0;
};

__attribute__((noinline)) void launch_on_thread(int i, long ms, ThreadRun& out) {
  // kernel_i(); kept for the whole run, as a module's names are (records point at them).
  static const char* const kNames[] = {"_Z8kernel_0v", "_Z8kernel_1v", "_Z8kernel_2v",
                                       "_Z8kernel_3v", "_Z8kernel_4v", "_Z8kernel_5v",
                                       "_Z8kernel_6v", "_Z8kernel_7v", "_Z8kernel_8v",
                                       "_Z8kernel_9v"};
  const char* name = kNames[i];
  out.tid = static_cast<long>(syscall(SYS_gettid));
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    standin_cuda_launch(name, 1, 32, 5000);
    if (++out.launches % 10 == 0) standin_cuda_synchronize();
  }
}

int main(int argc, char** argv) {
  if (standin_cuda_init() != 0) return 1;
  if (argc > 3 && std::strcmp(argv[1], "--threads") == 0) {
    const int n = std::min(std::atoi(argv[2]), 10);
    const long ms = std::atol(argv[3]);
    std::vector<ThreadRun> runs(static_cast<size_t>(n));
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      threads.emplace_back(launch_on_thread, i, ms, std::ref(runs[static_cast<size_t>(i)]));
    }
    for (auto& t : threads) t.join();
    standin_cuda_synchronize();
    for (int i = 0; i < n; ++i) {
      std::printf("thread %d tid %ld launches %ld\n", i, runs[static_cast<size_t>(i)].tid,
                  runs[static_cast<size_t>(i)].launches);
    }
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--graph") == 0) {
    launch_graph();
    launch_graph();
    standin_cuda_synchronize();
    std::printf("cuda_standin_app: graph ok\n");
    return 0;
  }
  if (argc > 3 && std::strcmp(argv[1], "--sync") == 0) {
    const long rounds = std::atol(argv[2]), us = std::atol(argv[3]);
    const double sum = sync_rounds(rounds, us);
    std::printf("cuda_standin_app: %ld rounds of %ld us (%d)\n", rounds, us, sum > 0 ? 1 : 0);
    return 0;
  }
  if (argc > 2 && std::strcmp(argv[1], "--loop") == 0) {
    const long n = launch_loop(std::atol(argv[2]), argc > 3 ? std::atol(argv[3]) : 20);
    std::printf("cuda_standin_app: %ld launches\n", n);
    return 0;
  }
  copy_in();
  for (int i = 0; i < 5; ++i) launch_scale();
  for (int i = 0; i < 3; ++i) launch_offset();
  copy_out();
  standin_cuda_synchronize();
  std::printf("cuda_standin_app: ok\n");
  if (argc > 2 && std::strcmp(argv[1], "--exit") == 0) return std::atoi(argv[2]);
  if (argc > 2 && std::strcmp(argv[1], "--fork") == 0) fork_children(std::atoi(argv[2]));
  return 0;
}
