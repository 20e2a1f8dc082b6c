#include "report/profile/unnamed_code.h"

namespace cprof::report {

UnnamedCode find_unnamed_code(const ProcessProfile& p, const SymbolizedProfiles& symbols,
                              size_t process) {
  UnnamedCode u;
  if (process >= symbols.frame_locations.size()) return u;
  const auto& locations = symbols.frame_locations[process];
  const auto& modules = symbols.table.location_module;
  for (const auto& c : p.counts) {
    const uint64_t innermost = p.stacks.offset(c.stack);
    if (innermost == p.stacks.offset(c.stack + 1) || innermost >= locations.size()) continue;
    const uint32_t location = locations[innermost];
    if (location < modules.size() && modules[location] != SymbolTable::kNoModule) continue;
    u.samples += c.samples;
    u.weight_ns += c.weight_ns;
  }
  if (p.weight_ns > 0) u.share = static_cast<double>(u.weight_ns) / static_cast<double>(p.weight_ns);
  u.flagged = u.samples >= kUnnamedCodeMinSamples && u.share >= kUnnamedCodeMinShare;
  return u;
}

std::vector<UnnamedModule> find_unnamed_modules(const std::vector<ModuleRow>& modules) {
  uint64_t all_ns = 0;
  for (const auto& m : modules) all_ns += m.self.time_ns;
  const auto share = [](uint64_t part, uint64_t whole) {
    return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
  };
  std::vector<UnnamedModule> out;
  for (const auto& m : modules) {
    if (m.unnamed.samples >= kUnnamedCodeMinSamples &&
        share(m.unnamed.time_ns, all_ns) >= kUnnamedCodeMinShare &&
        share(m.unnamed.time_ns, m.self.time_ns) >= kUnnamedModuleMinShare) {
      out.push_back({.module = m.module, .unnamed = m.unnamed, .self = m.self});
    }
  }
  return out;
}

}  // namespace cprof::report
