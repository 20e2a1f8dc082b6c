#pragma once
// The few lines a launcher prints after the run: what was written where, the warnings
// the runtime recorded (once each), and how to look at it.

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace cprof::launch {

struct RunSummary {
  size_t files = 0;
  size_t processes = 0;
  uint64_t samples = 0;
  uint64_t threads = 0;
  // GPU hooks' files (--gpu): what they recorded, and the trace windows (--gpu-duty).
  size_t gpu_files = 0;
  uint64_t kernels = 0;
  uint64_t copies = 0;
  uint64_t gpu_windows = 0;
  uint64_t gpu_traced_ns = 0;  // summed window length
  double gpu_duty = 0;         // of the last window seen
  std::vector<std::string> warnings;  // distinct, in order of appearance
  std::vector<std::string> problems;  // files that could not be read fully
};

std::set<std::string> results_files_in(const std::string& dir);
RunSummary summarize_new_results(const std::string& dir, const std::set<std::string>& before);
void print_run_summary(FILE* out, const char* tool, const std::string& dir, const RunSummary& s);

}  // namespace cprof::launch
