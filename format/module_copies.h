#pragma once
// Copies of the ELF files a sampled process ran that are gone from their paths (deleted,
// or replaced by a rebuild) since it started: sample-run --pid saves them in the results
// directory, read through /proc/PID/map_files, so the report can still name their code.
// They are laid out as a separate-debug-file root (docs/results-format.md, "Module
// copies"): DIR/modules/.build-id/xx/yyyy.debug, which the symbolizer searches by the
// build-id the module record names.

#include <string>

namespace cprof::format {

inline constexpr const char* kModuleCopiesDir = "modules";

// The root to search, for results directory `dir`.
inline std::string module_copies_root(const std::string& dir) {
  return dir + "/" + kModuleCopiesDir;
}

// Where the copy of the module with `build_id` (lowercase hex, at least 3 digits) goes.
inline std::string module_copy_path(const std::string& dir, const std::string& build_id) {
  return module_copies_root(dir) + "/.build-id/" + build_id.substr(0, 2) + "/" +
         build_id.substr(2) + ".debug";
}

}  // namespace cprof::format
