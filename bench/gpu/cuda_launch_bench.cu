// A launch-heavy CUDA program for the CUDA tool's overhead: N tiny kernel launches from
// one call site, a stream synchronize after every SYNC of them; each kernel spins for
// SPIN_NS on the GPU (0: returns at once, the worst case for per-launch costs).
//   cprof-bench-cuda-launches [N=100000] [SYNC=10] [SPIN_NS=0]
// Prints "launches=N sync_every=SYNC wall_ms=..." (the launch loop only; CUDA's own start
// and the tool's start and exit are in the command's wall time, which the script measures).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void tiny_kernel(int* counter, unsigned long long spin_ns) {
  if (spin_ns > 0) {
    const unsigned long long start = global_ns();
    while (global_ns() - start < spin_ns) {
    }
  }
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

volatile long g_launched = 0;

__attribute__((noinline)) void launch_tiny(int* counter, unsigned long long spin_ns) {
  tiny_kernel<<<1, 32>>>(counter, spin_ns);
  g_launched = g_launched + 1;  // not a tail call: the launching frame stays on the stack
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  const long sync_every = argc > 2 && std::atol(argv[2]) > 0 ? std::atol(argv[2]) : 10;
  const unsigned long long spin_ns = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
  int* counter = nullptr;
  if (cudaMalloc(&counter, sizeof(int)) != cudaSuccess ||
      cudaMemset(counter, 0, sizeof(int)) != cudaSuccess) {
    std::fprintf(stderr, "cprof-bench-cuda-launches: no usable CUDA device\n");
    return 1;
  }
  launch_tiny(counter, spin_ns);  // module load and first-launch costs stay out of the loop
  cudaDeviceSynchronize();
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    launch_tiny(counter, spin_ns);
    if ((i + 1) % sync_every == 0) cudaStreamSynchronize(nullptr);
  }
  cudaDeviceSynchronize();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  int total = 0;
  cudaMemcpy(&total, counter, sizeof total, cudaMemcpyDeviceToHost);
  cudaFree(counter);
  if (total != n + 1) {
    std::fprintf(stderr, "cprof-bench-cuda-launches: counted %d launches, expected %ld\n", total,
                 n + 1);
    return 1;
  }
  std::printf("launches=%ld sync_every=%ld spin_ns=%llu wall_ms=%.3f\n", n, sync_every, spin_ns,
              ms);
  return 0;
}
