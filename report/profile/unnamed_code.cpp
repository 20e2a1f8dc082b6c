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

}  // namespace cprof::report
