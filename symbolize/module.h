#pragma once
// Everything known about one module (path + build-id): its ELF file, the file with its
// DWARF, its symbol tables and the DWARF index. Opened once and cached by Symbolizer.
// All members lock the module's mutex: libdw is not thread-safe, different modules run
// in parallel.

#include <memory>
#include <mutex>
#include <regex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbolize/dwarf/dwarf_index.h"
#include "symbolize/elf/elf_file.h"
#include "symbolize/elf/plt.h"
#include "symbolize/elf/symbol_table.h"
#include "symbolize/elf/unwind_functions.h"
#include "symbolize/result.h"
#include "symbolize/types.h"

namespace cprof::symbolize {

// Code of one function (or of its inlined copies) found by the reverse lookup.
struct FunctionRanges {
  std::string function;  // demangled unless Options::demangle is false
  std::vector<AddressRange> ranges;
  bool inlined = false;  // ranges of copies inlined into other functions
};

// Code of one source line found by the reverse lookup of every line.
struct LineRanges {
  std::string file;  // as the line table names it, lexically normalized
  uint32_t line = 0;
  std::vector<AddressRange> ranges;  // merged, sorted
};

class Module {
 public:
  // Never fails: a module that cannot be read answers every address with a Reason.
  Module(const ModuleRef& ref, const Options& options);

  // One Symbol per address, same order; each distinct address is looked up once.
  std::vector<Symbol> symbolize(std::span<const uint64_t> addresses);

  // FILE:LINE -> ranges. `file` matches by path suffix on whole components.
  Result<std::vector<AddressRange>> line_ranges(std::string_view file, uint32_t line,
                                                LineCode code);
  // Functions whose demangled name (or mangled, without demangling) matches `pattern`
  // as a whole (std::regex_search), with their out-of-line and inlined ranges.
  Result<std::vector<FunctionRanges>> function_ranges(const std::string& pattern);
  // Functions defined at FILE:LINE (DW_AT_decl_file/line), with their out-of-line and
  // inlined ranges: the line a function table names a function by, which often has no
  // code of its own (a signature). Empty when none is.
  std::vector<FunctionRanges> functions_defined_at(std::string_view file, uint32_t line);
  // Every source line with code, with its ranges, sorted by file and line.
  Result<std::vector<LineRanges>> all_line_ranges();

  Reason status() const { return status_; }
  // One line per problem found while opening or reading (never per address).
  std::vector<std::string> diagnostics();
  std::string debug_file_path() const;

 private:
  Symbol lookup(uint64_t addr);      // caller holds mu_
  Symbol plt_symbol(uint64_t addr);  // an address in a PLT section; caller holds mu_
  const std::string& name_of(const char* raw);
  // A function's name for the reverse lookups: its out-of-line body's ELF symbol, else its
  // DWARF name; caller holds mu_.
  const std::string& function_name(const Scope& scope, uint64_t low);
  void load_all_units();

  ModuleRef ref_;
  Options options_;
  std::mutex mu_;
  Reason status_ = Reason::ok;
  std::vector<std::string> notes_;
  std::unique_ptr<ElfFile> main_;       // the module file (nullptr if missing/rebuilt)
  std::unique_ptr<ElfFile> debug_;      // the file the DWARF comes from
  std::unique_ptr<ElfFile> debugdata_;  // .gnu_debugdata
  const ElfFile* layout_ = nullptr;     // sections used for the `unmapped` check
  SymbolTable symbols_;
  PltTable plt_;
  UnwindFunctions unwind_functions_;  // bounds of the functions no symbol names
  std::unique_ptr<DwarfIndex> dwarf_;
  // Demangled (or copied) names by the address of libdw's/libelf's string.
  std::unordered_map<const char*, std::string> names_;
  // "puts@plt" by the target's string; plt_fallback_ for stubs whose target is unknown.
  std::unordered_map<const char*, std::string> plt_names_;
  std::string plt_fallback_;
};

}  // namespace cprof::symbolize
