#pragma once
// The entry point of symbolize/: addresses of recorded modules -> functions, source
// lines and inline chains, and the reverse (FILE:LINE or FUNCTION -> address ranges).
//
// Thread-safe: concurrent calls on different modules run in parallel; calls on one module
// are serialized (libdw is not thread-safe). Each module is opened and indexed once and
// kept for the Symbolizer's lifetime.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symbolize/module.h"
#include "symbolize/result.h"
#include "symbolize/types.h"

namespace cprof::symbolize {

// One module's addresses in a batch.
struct ModuleAddresses {
  ModuleRef module;
  std::vector<uint64_t> addresses;
};

// A parsed "FILE:LINE".
struct SourceLine {
  std::string file;
  uint32_t line = 0;
};
Result<SourceLine> parse_source_line(std::string_view text);

class Symbolizer {
 public:
  explicit Symbolizer(Options options = {});
  ~Symbolizer();

  // Addresses are ELF virtual addresses of the module file (runtime address - load
  // bias); the caller passes return addresses already minus 1. One result per address,
  // same order; a miss is a Symbol with no frames and a Reason, never an exception.
  std::vector<Symbol> symbolize(const ModuleRef& module, std::span<const uint64_t> addresses);

  // Many modules in parallel (TBB), each distinct address of a module once. result[i]
  // answers batch[i], address for address.
  std::vector<std::vector<Symbol>> symbolize(std::span<const ModuleAddresses> batch);

  // FILE:LINE -> the address ranges holding its code (merged, sorted). FILE matches by
  // path suffix on whole components. Errors: no such file, an ambiguous file name (lists
  // the candidates), a line with no code (names the nearest lines with code).
  Result<std::vector<AddressRange>> ranges_for_line(const ModuleRef& module, std::string_view file,
                                                    uint32_t line,
                                                    LineCode code = LineCode::with_inlined_calls);
  // FUNCTION (ECMAScript regex, searched in the demangled name) -> its ranges, the
  // out-of-line body and the inlined copies listed separately.
  Result<std::vector<FunctionRanges>> ranges_for_function(const ModuleRef& module,
                                                          const std::string& pattern);
  // Functions defined at FILE:LINE (Module::functions_defined_at); empty when none is.
  std::vector<FunctionRanges> functions_defined_at(const ModuleRef& module, std::string_view file,
                                                   uint32_t line);
  // Every source line that has code, with its ranges (automatic selection by line).
  Result<std::vector<LineRanges>> all_lines(const ModuleRef& module);

  // Problems met with a module so far (unreadable file, missing .dwo, rebuilt binary,
  // corrupt units), one line each. Empty for a module not yet used.
  std::vector<std::string> diagnostics(const ModuleRef& module);

  // Opens the module if needed: ok, or why none of its addresses can be named
  // (missing_file, invalid_file, build_id_mismatch).
  Reason status(const ModuleRef& module);

  const Options& options() const { return options_; }

 private:
  std::shared_ptr<Module> module(const ModuleRef& ref);

  Options options_;
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Module>> modules_;
};

}  // namespace cprof::symbolize
