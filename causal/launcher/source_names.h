#pragma once
// Names of source files for the locations automatic mode selects: short enough to read
// in the report, exact enough that `--line NAME:LINE` takes the same file back.

#include <map>
#include <set>
#include <string>

namespace cprof::causal {

// Each file's shortest trailing part, whole path components, that no other file of
// `files` ends with: "pixel.c" where it is the only one, "encoder/macroblock.c" beside
// "common/macroblock.c". A file that is a trailing part of another one keeps its whole
// path. `--line` matches a file by such a trailing part (symbolize's suffix match).
std::map<std::string, std::string> shortest_unique_names(const std::set<std::string>& files);

}  // namespace cprof::causal
