#pragma once
// Everything a renderer needs, built once: the loaded processes, their symbols, the
// aggregated profile and the warnings met on the way. Renderers only read it.

#include <string>
#include <vector>

#include "report/load/loader.h"
#include "report/profile/flat_profile.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct Report {
  std::vector<ProcessProfile> processes;
  SymbolizedProfiles symbols;
  FlatProfile flat;
  std::vector<std::string> warnings;  // load and symbolization warnings, in order
  size_t files_found = 0;
  size_t files_failed = 0;

  uint64_t samples() const;  // every sample read, attributed or not
  uint64_t threads() const;  // every thread seen
};

// Symbolizes and aggregates what was loaded.
Report build_report(LoadResult loaded, SymbolSource& source);

}  // namespace cprof::report
