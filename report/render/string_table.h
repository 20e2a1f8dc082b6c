#pragma once
// Strings interned in the order of their first use, each stored once: pprof's
// string_table (pprof.cpp) and the Firefox Profiler's shared.stringArray (firefox.cpp).
// Internal to render/.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace cprof::report {

class StringTable {
 public:
  uint32_t index(const std::string& s) {
    const auto [it, added] = ids_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> strings_;
};

}  // namespace cprof::report
