#pragma once
// The name of a `--progress FILE:LINE` point: "FILE:LINE (--progress)". Not FILE:LINE
// alone, since a CAUSAL_PROGRESS on that line is named FILE:LINE too, and points of one
// name are one point. Until session 36 the suffix was " (breakpoint)", the name such
// points had when a hardware breakpoint counted them; most are now counted by a counter
// patched into the program's code, and reports named them by a counter they did not use.
// Results written then keep that name; line_progress_spec reads both.

#include <string>
#include <string_view>

namespace cprof::causal {

inline constexpr std::string_view kLineProgressSuffix = " (--progress)";
inline constexpr std::string_view kOldLineProgressSuffix = " (breakpoint)";

inline std::string line_progress_name(std::string_view spec) {
  return std::string(spec) + std::string(kLineProgressSuffix);
}

// FILE:LINE of a point's name; a name without either suffix is returned whole.
inline std::string_view line_progress_spec(std::string_view name) {
  for (const std::string_view suffix : {kLineProgressSuffix, kOldLineProgressSuffix}) {
    if (name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return name;
}

}  // namespace cprof::causal
