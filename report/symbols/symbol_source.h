#pragma once
// Where the report gets names for addresses. The report needs one batch call per module
// (distinct, sorted ELF addresses in; one answer per address out); everything else --
// finding the distinct addresses, running modules in parallel, interning names -- is
// symbol_table.cpp's. A source that knows nothing is valid: the rows then read
// "module+0xoffset".

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace cprof::report {

struct ModuleKey {
  std::string path;
  std::string build_id;
  bool operator==(const ModuleKey&) const = default;
};

struct SourceLocation {
  std::string function;  // demangled; empty when unknown
  std::string file;      // empty when unknown
  uint32_t line = 0;     // 0 when unknown
  uint32_t column = 0;
  std::string decl_file;  // where the function is defined; decl_line 0 when unknown
  uint32_t decl_line = 0;
};

// The inline chain at one address: innermost (the inlined callee) first, outermost (the
// real function) last. Empty when the address has no name.
struct ResolvedAddress {
  std::vector<SourceLocation> frames;
  // No name at all, but the module's unwind table says which function the address is in:
  // that function's start (ELF address). The report then counts the address under one
  // row for the function, "sub_START (module)". 0: unknown, a row per address.
  uint64_t unnamed_function_start = 0;
};

struct ModuleSymbols {
  std::vector<ResolvedAddress> addresses;  // one per address asked for, in order
  std::string problem;  // why nothing resolved ("no such file"), shown once as a warning
};

class SymbolSource {
 public:
  virtual ~SymbolSource() = default;
  virtual std::string name() const = 0;
  // Called concurrently for different modules.
  virtual ModuleSymbols resolve(const ModuleKey& module, std::span<const uint64_t> elf_addresses) = 0;
};

// Resolves nothing: every row is "module+0xoffset".
std::unique_ptr<SymbolSource> make_address_only_source();

// The project's DWARF symbolizer (symbolize/) when the report was built with it, else the
// address-only source. `debug_dirs` (--debug-dir) are searched for debug files first,
// then /usr/lib/debug; `results_dir`: where copies of modules gone from their paths may
// be kept (format/module_copies.h), searched last.
std::unique_ptr<SymbolSource> make_default_symbol_source(
    const std::string& results_dir = "", const std::vector<std::string>& debug_dirs = {});

}  // namespace cprof::report
