#pragma once
// What the `causal-run --gpu` end-to-end tests check, for the HSA stand-in
// (gpu_causal_e2e_test.cpp) and the CUDA stand-in (cuda_standin_e2e_test.cpp): the GPU
// records, the causal experiments, and the runtime's messages about GPU waits.

#include <cstddef>
#include <cstdint>
#include <string>

namespace cprof::testing {

// The number of the first line of `source` holding `mark` (0: none).
int marked_line(const std::string& source, const std::string& mark);

struct CausalGpuRun {
  size_t kernels = 0;    // kernel records (the .gpu.cprof file)
  size_t gpu_files = 0;
  size_t experiments = 0;
  uint64_t selected_samples = 0;
  std::string messages;  // every message record's text, one per line
};

CausalGpuRun read_causal_gpu_run(const std::string& dir);

// The number right after the first match of `pattern` in `text` (0: none).
uint64_t number_after(const std::string& text, const std::string& pattern);

// A causal run whose selected line is the program's wait for the GPU, `rounds` times,
// spinning: every wait was seen, the samples taken inside them were counted as blocked
// (at least 50), and at most a tenth as many were counted for the selected line.
void expect_gpu_waits_not_counted_as_work(const CausalGpuRun& run, uint64_t rounds,
                                          const std::string& output);

}  // namespace cprof::testing
