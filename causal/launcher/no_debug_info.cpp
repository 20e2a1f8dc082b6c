#include "causal/launcher/no_debug_info.h"

#include <algorithm>
#include <optional>

namespace cprof::causal {

bool is_system_file(const std::string& path) {
  return path.rfind("/usr/", 0) == 0 || path.rfind("/lib", 0) == 0 || path.rfind("/bin/", 0) == 0 ||
         path.rfind("/sbin/", 0) == 0;
}

std::string no_debug_info_error(const std::string& program) {
  // A system file is not rebuilt: its debug information comes in a package (found by
  // build-id under /usr/lib/debug).
  if (is_system_file(program)) {
    return program + " has no debug information: install its debug symbols (Debian: the " +
           "package's -dbgsym or -dbg) or rebuild it with -g";
  }
  return program + " has no debug information: rebuild it with -g (e.g. -O2 -g)";
}

void group_no_debug_info_warnings(std::vector<std::string>& warnings) {
  const std::string prefix = "no experiments in ";
  std::vector<std::string> programs;
  const auto names_program = [&](const std::string& w) -> std::optional<std::string> {
    if (w.rfind(prefix, 0) != 0) return std::nullopt;
    const size_t colon = w.find(": ", prefix.size());
    if (colon == std::string::npos) return std::nullopt;
    std::string program = w.substr(prefix.size(), colon - prefix.size());
    if (w.compare(colon + 2, std::string::npos, no_debug_info_error(program)) != 0) return std::nullopt;
    return program;
  };
  for (const auto& w : warnings) {
    if (auto p = names_program(w)) programs.push_back(*p);
  }
  if (programs.size() < 2) return;
  std::string joined;
  for (const auto& p : programs) joined += (joined.empty() ? "" : ", ") + p;
  const auto first = std::find_if(warnings.begin(), warnings.end(),
                                  [&](const std::string& w) { return names_program(w).has_value(); });
  *first = prefix + std::to_string(programs.size()) +
           " programs it ran that have no debug information (rebuild one with -g, or install "
           "its debug symbols, to experiment in it): " + joined;
  warnings.erase(std::remove_if(std::next(first), warnings.end(),
                                [&](const std::string& w) { return names_program(w).has_value(); }),
                 warnings.end());
}

}  // namespace cprof::causal
