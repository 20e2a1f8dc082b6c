#pragma once
// Why an automatic causal-run started no experiment although the program ran: its
// samples ran outside the code --binary-scope lets it select (a Python program's time is
// in libpython, and python's main tail-calls into it, so no frame of the executable is on
// any stack). The runtime says when no sample had a frame in scope; this counts the new
// results files' samples by the module holding their PC, and words the hint.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "causal/launcher/scope.h"
#include "format/records.h"

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

// Counts the samples of results files by the module their PC lies in, and those with a
// frame in a module the binary scope includes, from the records of one pass over the files
// (the launcher's run summary feeds it). A PC in the profiler's own runtime counts under no
// module; GPU hook files are left out.
class SampleModuleCounter {
 public:
  explicit SampleModuleCounter(BinaryScope scope);
  // The records of each file in order; a file starts with its process record.
  void add(const format::Record& record);
  SampleModules finish();

 private:
  struct ModuleRange {
    uint64_t start = 0;
    uint64_t end = 0;
    std::string path;
  };
  void end_file();

  BinaryScope scope_;
  // The file being read.
  bool open_ = false;
  bool gpu_hooks_ = false;
  bool none_in_scope_ = false;
  std::string executable_;
  std::vector<ModuleRange> modules_;
  std::vector<std::vector<uint64_t>> stacks_;
  // Over every file: samples by (module path, whether it is the executable).
  std::map<std::pair<std::string, bool>, uint64_t> counts_;
  SampleModules out_;
};

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
