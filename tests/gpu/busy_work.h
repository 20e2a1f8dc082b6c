#pragma once
// CPU work of a given length for the GPU test programs (cuda_launches.cu and its stand-in
// twin, cuda_standin_app.cpp): the time between two waits for the GPU.

#include <chrono>

namespace cprof::testing {

// Spins on arithmetic for about `us` microseconds; returns the result so it is not dropped.
__attribute__((noinline)) inline double cpu_work(long us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  double x = 1;
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 100; ++i) x = x * 1.0000001 + 1e-9;
  }
  return x;
}

}  // namespace cprof::testing
