#pragma once
// Writes a ModuleRecord for every module of a ModuleTable snapshot that this results file
// has not recorded yet (at start, after dlopen), and for code a program mapped from a
// file a second time (remapped_code.h). Shared by every writer of a results file (the
// sampling runtime, the GPU tools library). Not for signal handlers.

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
  // Writes the executable file mappings outside every module of `snapshot` that this
  // file has not recorded yet (remapped_code.h), from /proc/self/maps. For when samples
  // fell outside every module; reads the maps file at most once a second.
  void write_remapped(const ModuleSnapshot* snapshot, format::ResultsWriter& writer, uint64_t now_ns);
  // A new file (a forked child's): everything is written again.
  void reset();

 private:
  uint32_t next_id() const { return static_cast<uint32_t>(written_.size() + remapped_.size()); }

  uint64_t generation_ = 0;
  std::vector<std::pair<std::string, uint64_t>> written_;  // (path, load bias)
  std::vector<std::pair<uint64_t, uint64_t>> remapped_;    // (start, load bias)
  uint64_t last_maps_read_ns_ = 0;
};

}  // namespace cprof::sampler
