#pragma once
// Samples taken in code outside every file the process had mapped: code it generated at
// run time (V8, the JVM, LuaJIT, a regex or query JIT). Their innermost frame is the
// interrupted instruction itself, so unlike an unwound return address it cannot be a bad
// unwind: the code was there and had no file. A runtime that writes a perf map
// (/tmp/perf-PID.map) gets it named (load/perf_map.h); without one the report can only say
// "[unknown]", and must say how to get names (docs/report.md, "Code outside every file").

#include <cstdint>
#include <string>
#include <vector>

#include "report/load/process_profile.h"
#include "report/profile/module_view.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

// A process is flagged when its unnamed samples are at least this share of its profile
// and at least this many: a few samples in a trampoline are not worth a note.
inline constexpr double kUnnamedCodeMinShare = 0.05;
inline constexpr uint64_t kUnnamedCodeMinSamples = 10;

struct UnnamedCode {
  uint64_t samples = 0;    // of the profile's clock, innermost frame in no file and no map
  uint64_t weight_ns = 0;  // their summed weight
  double share = 0;        // weight_ns over the process's profile
  bool flagged = false;
};

// `process` indexes both `processes` and `symbols.frame_locations`.
UnnamedCode find_unnamed_code(const ProcessProfile& p, const SymbolizedProfiles& symbols,
                              size_t process);

// A module whose own samples are mostly in functions its symbols do not name: a stripped
// library or program whose debug file the report did not find. Flagged past the same
// share of the profile and count as above, and when at least this share of the module's
// own samples is unnamed.
inline constexpr double kUnnamedModuleMinShare = 0.5;

struct UnnamedModule {
  std::string module;         // path
  Measure unnamed;            // samples whose innermost frame is a function with no name in it
  Measure self;               // all of its samples
  std::string package;        // the Debian package that installed it; "" when unknown
  std::string debug_package;  // the one with its debug symbols; "" when unknown
};

// The flagged modules of `modules` (module_view.h), in the same order, without packages.
std::vector<UnnamedModule> find_unnamed_modules(const std::vector<ModuleRow>& modules);

}  // namespace cprof::report
