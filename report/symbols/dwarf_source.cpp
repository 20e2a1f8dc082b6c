// The report's names come from symbolize/ (libdw): one batch per module, inline chains
// included. Built only when symbolize/ is part of the build.
#include <fmt/format.h>

#include "format/module_copies.h"
#include "report/symbols/symbol_source.h"
#include "symbolize/symbolizer.h"

namespace cprof::report {
namespace {

symbolize::Options options_for(const std::string& results_dir,
                               const std::vector<std::string>& debug_dirs) {
  symbolize::Options o;
  o.debug_dirs.insert(o.debug_dirs.begin(), debug_dirs.begin(), debug_dirs.end());
  if (!results_dir.empty()) o.debug_dirs.push_back(format::module_copies_root(results_dir));
  return o;
}

class DwarfSource final : public SymbolSource {
 public:
  DwarfSource(const std::string& results_dir, const std::vector<std::string>& debug_dirs)
      : symbolizer_(options_for(results_dir, debug_dirs)) {}
  std::string name() const override { return "dwarf"; }

  ModuleSymbols resolve(const ModuleKey& key, std::span<const uint64_t> elf_addresses) override {
    const symbolize::ModuleRef ref{.path = key.path, .build_id = key.build_id};
    ModuleSymbols out;
    if (const auto status = symbolizer_.status(ref); status != symbolize::Reason::ok) {
      out.problem = std::string(symbolize::to_string(status));
      // The report names the module already; keep only the diagnostic's detail.
      const auto diagnostics = symbolizer_.diagnostics(ref);
      if (!diagnostics.empty()) {
        std::string_view detail = diagnostics.front();
        if (detail.starts_with(key.path + ": ")) detail.remove_prefix(key.path.size() + 2);
        out.problem += " (" + std::string(detail) + ")";
      }
      out.addresses.resize(elf_addresses.size());
      return out;
    }
    auto symbols = symbolizer_.symbolize(ref, elf_addresses);
    out.addresses.reserve(symbols.size());
    for (auto& s : symbols) {
      ResolvedAddress r;
      r.frames.reserve(s.frames.size());
      for (auto& f : s.frames) {
        r.frames.push_back({.function = std::move(f.function),
                            .file = std::move(f.file),
                            .line = f.line,
                            .column = f.column,
                            .decl_file = std::move(f.decl_file),
                            .decl_line = f.decl_line});
      }
      r.unnamed_function_start = s.frames.empty() ? s.function_start : 0;
      out.addresses.push_back(std::move(r));
    }
    return out;
  }

 private:
  symbolize::Symbolizer symbolizer_;
};

}  // namespace

std::unique_ptr<SymbolSource> make_default_symbol_source(
    const std::string& results_dir, const std::vector<std::string>& debug_dirs) {
  return std::make_unique<DwarfSource>(results_dir, debug_dirs);
}

}  // namespace cprof::report
