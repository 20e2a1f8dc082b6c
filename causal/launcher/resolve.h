#pragma once
// causal-run's reverse lookups: --line FILE:LINE, --function REGEX, automatic selection
// (by line or by function, within --binary-scope and --source-scope) and --progress
// FILE:LINE, resolved with the symbolizer to ELF address ranges of the executable or of a
// library in scope (the runtime adds each one's load bias). Errors are one line for the
// user.

#include <algorithm>
#include <string>
#include <vector>

#include "causal/launcher/scope.h"
#include "causal/runtime/settings.h"
#include "symbolize/symbolizer.h"

namespace cprof::causal {

// What the user asked to speed up. Also passed to the runtime (selection_arguments()) so
// that an exec'd program can be resolved the same way.
struct Selection {
  std::vector<std::string> lines;  // FILE:LINE
  std::string function;            // regex; empty: none
  std::string mode = "line";       // automatic selection: "line" or "function"
  std::vector<std::string> binary_scope;
  std::vector<std::string> source_scope;

  bool automatic() const { return lines.empty() && function.empty(); }
};

// The selection as causal-run arguments (--line ..., --mode ..., ...).
std::vector<std::string> selection_arguments(const Selection& selection);

// The shared libraries the program loads at start (as the dynamic loader resolves them,
// from `ldd`). Empty when it cannot tell.
std::vector<std::string> startup_libraries(const std::string& executable);

class LocationResolver {
 public:
  LocationResolver(std::string executable, const Selection& selection);

  // Leaves out the binaries in scope that have no DWARF line information (a line for
  // each in `notes`); the one-line error when none in scope has any ("" when some has,
  // or when none matches the scope: resolve() says so).
  std::string check_debug_info(std::vector<std::string>& notes);
  // Resolves the selection into `out`. Returns "" or the first error. `notes` gets lines
  // worth telling the user (libraries in scope without debug information).
  std::string resolve(std::vector<LocationLine>& out, std::vector<std::string>& notes);
  // --progress FILE:LINE: the addresses to count (the executable's, else those of the
  // first library that has the file, at start or named as loaded later), one per copy of the
  // line: its first instruction in each function body that holds it, out of line or
  // inlined into a caller (each copy runs on paths of its own; the lowest alone may be
  // one that never runs). Returns "" or the error.
  std::string breakpoint_addresses(const std::string& spec, std::vector<uint64_t>& addresses,
                                   std::string& library);
  // Whether `library` is a file --binary-scope names that the program does not load at
  // start (it may load it later, with dlopen).
  bool loaded_later(const std::string& library) const {
    return std::find(later_.begin(), later_.end(), library) != later_.end();
  }

 private:
  struct Binary {
    std::string path;
    std::string module;  // "" for the main executable (LocationLine::module)
  };
  std::string add_lines(std::vector<LocationLine>& out, std::vector<std::string>& notes);
  bool add_function_defined_at(const std::string& spec, const std::string& file, uint32_t line,
                               std::vector<LocationLine>& out, std::vector<std::string>& notes);
  std::string add_functions(const std::string& pattern, const Binary& binary, bool in_scope_only,
                            std::vector<LocationLine>& out);
  std::string add_all_lines(const Binary& binary, std::vector<LocationLine>& out);
  bool has_debug_info(const std::string& path, std::string& error);
  // The libraries the executable loads at start (startup_libraries), read once.
  const std::vector<std::string>& libraries();

  std::string executable_;
  Selection selection_;
  BinaryScope binary_scope_;
  SourceScope source_scope_;
  std::vector<Binary> binaries_;  // in scope: the executable (when MAIN is) and libraries
  // Library files --binary-scope names by path that the program does not load at start.
  std::vector<std::string> later_;
  std::optional<std::vector<std::string>> libraries_;  // startup_libraries(), when asked
  symbolize::Symbolizer symbolizer_;
};

}  // namespace cprof::causal
