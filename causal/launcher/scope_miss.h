#pragma once
// Why an automatic causal-run started no experiment although the program ran: its
// samples ran outside the code --binary-scope lets it select (a Python program's time is
// in libpython, not in the python executable). Counts where the new results files'
// samples ran (the module holding each interrupted PC) and words the hint.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "causal/launcher/scope.h"

namespace cprof::causal {

struct ModuleSamples {
  std::string path;
  uint64_t samples = 0;
  bool main_executable = false;  // the executable of the process that ran it
};

struct SampleModules {
  uint64_t samples = 0;                // all samples, in a module or not
  std::vector<ModuleSamples> modules;  // most samples first
};

// Counts the samples of these results files by the module their PC lies in. Files that
// cannot be read are skipped (the run summary names them); the profiler's own runtime is
// not counted as a module of the program.
SampleModules count_sample_modules(const std::vector<std::filesystem::path>& files);

// "" unless most samples ran in modules the scope leaves out; else one line naming the
// busiest of them with its share and the --binary-scope option that would include it.
std::string scope_miss_hint(const SampleModules& where, const BinaryScope& scope);

}  // namespace cprof::causal
