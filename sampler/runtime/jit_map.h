#pragma once
// The JIT symbol map a runtime that compiles code wrote for perf ("/tmp/perf-PID.map":
// node --perf-basic-prof, python3.12 -X perf, java -XX:+DumpPerfMapAtExit), kept with the
// results: copied at exit next to the process's results file (X.perf-map for X.cprof),
// where the report reads it to name samples in JIT code (report/load/perf_map.h). Copied
// by the process itself, so a later process with the same pid cannot be mistaken for it.
//
// Normal context (the runtime's exit path).

#include <string>

namespace cprof::sampler {

// "X.perf-map" for "X.cprof" (the path with its extension replaced).
std::string jit_map_path_for(const std::string& results_path);

// Copies /tmp/perf-<pid>.map, if this process has one, to jit_map_path_for(results_path).
// Returns false only when a map exists and could not be copied.
bool copy_jit_map(int pid, const std::string& results_path);
// The same from `source`. The copy is a new file: an existing file or link under its name
// is left as it is, and the copy fails.
bool copy_jit_map_from(const std::string& source, const std::string& results_path);

}  // namespace cprof::sampler
