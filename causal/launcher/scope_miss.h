#pragma once
// Why an automatic causal-run started no experiment although the program ran: its
// samples ran outside the code --binary-scope lets it select (a Python program's time is
// in libpython, and python's main tail-calls into it, so no frame of the executable is on
// any stack). The runtime says when no sample had a frame in scope; this counts the new
// results files' samples by the module holding their PC, and words the hint.

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
  uint64_t samples = 0;
  uint64_t samples_in_scope = 0;  // with a frame in a module the binary scope includes
  std::vector<ModuleSamples> modules;  // by the module of the sample's PC, most first
  // Processes whose runtime said none of their samples had a frame in a location it may
  // select (kNoSampleInScopeMessage), and those that ran experiments in automatic mode.
  size_t processes_without_scope_samples = 0;
};

// Counts the samples of these results files by the module their PC lies in, and those
// with a frame in a module `scope` includes. Files that cannot be read are skipped (the
// run summary names them); a PC in the profiler's own runtime counts under no module.
SampleModules count_sample_modules(const std::vector<std::filesystem::path>& files,
                                   const BinaryScope& scope);

// "" unless some process said no sample was in scope; else one line saying so, with the
// busiest module outside the binary scope, its share and the --binary-scope option that
// would include it.
std::string scope_miss_hint(const SampleModules& where, const BinaryScope& scope);

// For a run that did experiment: "" unless under 1% of at least 100 samples had a frame in
// the binary scope (a thread of the executable's that only starts and joins the library's
// workers); else one line saying so, with the busiest module outside the scope and the
// option that would include it. Its experiments can only measure code that hardly runs.
std::string scarce_scope_note(const SampleModules& where, const BinaryScope& scope);

}  // namespace cprof::causal
