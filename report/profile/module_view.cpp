#include "report/profile/module_view.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace cprof::report {

std::vector<ModuleRow> build_module_view(const FlatProfile& flat, const SymbolTable& symbols) {
  std::map<std::string, ModuleRow> by_path;
  for (const FlatRow& row : flat.functions) {
    if (row.self.samples == 0) continue;
    const FunctionInfo& f = symbols.functions[row.id];
    const std::string& path = f.module.empty() ? std::string("[unknown]") : f.module;
    ModuleRow& m = by_path[path];
    m.module = path;
    m.self.samples += row.self.samples;
    m.self.time_ns += row.self.time_ns;
    if (!f.named) {
      m.unnamed.samples += row.self.samples;
      m.unnamed.time_ns += row.self.time_ns;
    }
    ++m.functions;
    if (row.self.time_ns > m.top_function_ns || m.functions == 1) {
      m.top_function = row.id;
      m.top_function_ns = row.self.time_ns;
    }
  }
  std::vector<ModuleRow> out;
  out.reserve(by_path.size());
  for (auto& [path, row] : by_path) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(), [](const ModuleRow& a, const ModuleRow& b) {
    return std::tie(b.self.time_ns, b.self.samples) < std::tie(a.self.time_ns, a.self.samples);
  });
  return out;
}

uint64_t self_ns_after(const std::vector<ModuleRow>& rows, size_t shown) {
  uint64_t ns = 0;
  for (size_t i = shown; i < rows.size(); ++i) ns += rows[i].self.time_ns;
  return ns;
}

}  // namespace cprof::report
