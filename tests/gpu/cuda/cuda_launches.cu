// A small CUDA program for the CUDA tool's end-to-end test: two named kernels launched
// from two call sites (5 and 3 times), one host-to-device copy of 1 MiB and one
// device-to-host copy of 512 KiB, each from its own function.
//   cuda_launches           runs and prints "cuda_launches: ok" (exit 0), or exit 1
//   cuda_launches --probe   exit 0 when a CUDA device is usable, 77 when not
//   cuda_launches --loop MS launches 20 µs kernels from launch_loop for MS ms,
//                           synchronizing after every 10, then prints how many
//   cuda_launches --sync N US  N rounds of: a kernel spinning US µs, cudaDeviceSynchronize
//                           (LINE_SYNC), CPU work of about the same length (LINE_WORK)
//   cuda_launches --graph   captures graph_a, graph_b, graph_c into a graph (build_graph)
//                           and launches it twice from launch_graph
// The last three are tests/gpu/cuda_standin_app.cpp's modes of the same names.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "include/causal/progress.h"
#include "tests/gpu/busy_work.h"

constexpr int kN = 1 << 18;  // floats: 1 MiB

__global__ void scale_kernel(float* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void offset_kernel(float* x, float b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += b;
}

// Counting after the launch keeps the launch from being a tail call: the launching
// function's frame stays on the stack, as in most real code.
volatile int g_launches = 0;

__attribute__((noinline)) void launch_scale(float* d) {
  scale_kernel<<<kN / 256, 256>>>(d, 2.0f, kN);
  g_launches = g_launches + 1;
}

__attribute__((noinline)) void launch_offset(float* d) {
  offset_kernel<<<kN / 256, 256>>>(d, 1.0f, kN);
  g_launches = g_launches + 1;
}

__attribute__((noinline)) bool copy_in(float* d, const float* h) {
  return cudaMemcpy(d, h, kN * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
}

__attribute__((noinline)) bool copy_out(float* h, const float* d) {
  return cudaMemcpy(h, d, kN / 2 * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
}

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void loop_kernel() {
  const unsigned long long start = global_ns();
  while (global_ns() - start < 20000) {
  }
}

__global__ void wait_kernel(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) {
  }
}

__attribute__((noinline)) long launch_loop(long ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  long n = 0;
  while (std::chrono::steady_clock::now() < until) {
    loop_kernel<<<1, 32>>>();
    if (++n % 10 == 0) cudaStreamSynchronize(nullptr);
  }
  cudaDeviceSynchronize();
  return n;
}

__attribute__((noinline)) double sync_rounds(long rounds, long us) {
  double sum = 0;
  for (long r = 0; r < rounds; ++r) {
    wait_kernel<<<1, 32>>>(static_cast<unsigned long long>(us) * 1000);
    cudaDeviceSynchronize();              // LINE_SYNC
    sum += cprof::testing::cpu_work(us);  // LINE_WORK
    CAUSAL_PROGRESS;  // experiments begin at the first round (docs/causal.md, Experiments)
  }
  return sum;
}

__global__ void graph_a() {}
__global__ void graph_b() {}
__global__ void graph_c() {}

// The kernels launched here are captured, not run: they never have records of their own.
__attribute__((noinline)) cudaGraphExec_t build_graph(cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess) return nullptr;
  graph_a<<<1, 32, 0, stream>>>();
  graph_b<<<1, 32, 0, stream>>>();
  graph_c<<<1, 32, 0, stream>>>();
  if (cudaStreamEndCapture(stream, &graph) != cudaSuccess) return nullptr;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) exec = nullptr;
  cudaGraphDestroy(graph);
  return exec;
}

__attribute__((noinline)) bool launch_graph(cudaGraphExec_t exec, cudaStream_t stream) {
  const bool ok = cudaGraphLaunch(exec, stream) == cudaSuccess;
  g_launches = g_launches + 1;
  return ok;
}

int main(int argc, char** argv) {
  int devices = 0;
  const bool usable = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  if (argc > 1 && std::strcmp(argv[1], "--probe") == 0) return usable ? 0 : 77;
  if (!usable) {
    std::fprintf(stderr, "cuda_launches: no CUDA device\n");
    return 1;
  }
  if (argc > 2 && std::strcmp(argv[1], "--loop") == 0) {
    const long n = launch_loop(std::atol(argv[2]));
    std::printf("cuda_launches: %ld launches\n", n);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
  }
  if (argc > 1 && std::strcmp(argv[1], "--graph") == 0) {
    cudaStream_t stream = nullptr;
    cudaStreamCreate(&stream);
    cudaGraphExec_t exec = build_graph(stream);
    const bool ok = exec != nullptr && launch_graph(exec, stream) && launch_graph(exec, stream) &&
                    cudaStreamSynchronize(stream) == cudaSuccess;
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    cudaStreamDestroy(stream);
    std::printf(ok ? "cuda_launches: graph ok\n" : "cuda_launches: graph failed\n");
    return ok ? 0 : 1;
  }
  if (argc > 3 && std::strcmp(argv[1], "--sync") == 0) {
    const long rounds = std::atol(argv[2]), us = std::atol(argv[3]);
    const double sum = sync_rounds(rounds, us);
    std::printf("cuda_launches: %ld rounds of %ld us (%d)\n", rounds, us, sum > 0 ? 1 : 0);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
  }
  std::vector<float> host(kN, 1.0f);
  float* dev = nullptr;
  if (cudaMalloc(&dev, kN * sizeof(float)) != cudaSuccess || !copy_in(dev, host.data())) {
    std::fprintf(stderr, "cuda_launches: cudaMalloc/copy failed\n");
    return 1;
  }
  for (int i = 0; i < 5; ++i) launch_scale(dev);
  for (int i = 0; i < 3; ++i) launch_offset(dev);
  if (!copy_out(host.data(), dev) || cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "cuda_launches: kernels or copy failed\n");
    return 1;
  }
  cudaFree(dev);
  // 1 * 2^5 + 3
  for (int i = 0; i < kN / 2; ++i) {
    if (host[i] != 35.0f) {
      std::fprintf(stderr, "cuda_launches: wrong result %g at %d\n", host[i], i);
      return 1;
    }
  }
  std::printf("cuda_launches: ok\n");
  return 0;
}
