#pragma once
// Test support: reading what the tools and the test programs print, for end-to-end tests.

#include <optional>
#include <regex>
#include <string>

namespace cprof::testing {

// program_speedup of the point at `speedup` (as the JSON writes it: "0.5") in the first
// causal prediction for `location` in causal-report's JSON; nullopt when there is none.
inline std::optional<double> predicted_speedup(const std::string& json, const std::string& location,
                                               const std::string& speedup) {
  const size_t at = json.find("\"location\": \"" + location + "\"");
  if (at == std::string::npos) return std::nullopt;
  const std::regex point("\\{\"speedup\": " + speedup + ", \"program_speedup\": (-?[0-9.e+-]+)");
  std::smatch m;
  const std::string rest = json.substr(at);
  if (!std::regex_search(rest, m, point)) return std::nullopt;
  return std::stod(m[1]);
}

// The "checksum ..." line a test program printed in `output`, or "" when there is none.
inline std::string checksum_line(const std::string& output) {
  std::smatch m;
  return std::regex_search(output, m, std::regex("checksum [^\\n]*")) ? m.str() : "";
}

}  // namespace cprof::testing
