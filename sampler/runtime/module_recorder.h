#pragma once
// Writes a ModuleRecord for every module of a ModuleTable snapshot that this results file
// has not recorded yet (at start, after dlopen). Shared by every writer of a results file
// (the sampling runtime, the GPU tools library). Not for signal handlers.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/writer.h"
#include "sampler/unwind/module_table.h"

namespace cprof::sampler {

class ModuleRecorder {
 public:
  // Writes the modules of `snapshot` not written before; cheap when nothing changed.
  void write_new(const ModuleSnapshot* snapshot, format::ResultsWriter& writer, uint64_t now_ns);
  // A new file (a forked child's): everything is written again.
  void reset();

 private:
  uint64_t generation_ = 0;
  std::vector<std::pair<std::string, uint64_t>> written_;  // (path, load bias)
};

}  // namespace cprof::sampler
