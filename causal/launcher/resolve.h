#pragma once
// causal-run's reverse lookups: --line FILE:LINE, --function REGEX, automatic selection
// and --progress FILE:LINE, resolved with the symbolizer to ELF address ranges of the
// executable (the runtime adds the load bias). Errors are one line for the user.

#include <string>
#include <vector>

#include "causal/runtime/settings.h"
#include "symbolize/symbolizer.h"

namespace cprof::causal {

class LocationResolver {
 public:
  explicit LocationResolver(std::string executable);

  // "" when the executable has DWARF line information; else the one-line error.
  std::string check_debug_info();
  // Appends the location of each FILE:LINE. Returns "" or the first error.
  std::string add_lines(const std::vector<std::string>& specs, std::vector<LocationLine>& out);
  // Appends one location per function matching the regex (out-of-line and inlined code
  // together). Returns "" or the error.
  std::string add_functions(const std::string& pattern, std::vector<LocationLine>& out);
  // Automatic selection: every function of the executable's own code (not the C++
  // library's templates or the compiler's start-up code).
  std::string add_all_functions(std::vector<LocationLine>& out);
  // --progress FILE:LINE: the address of the line's first instruction.
  std::string breakpoint_address(const std::string& spec, uint64_t& address);

 private:
  std::string executable_;
  symbolize::Symbolizer symbolizer_;
  symbolize::ModuleRef module_;
};

}  // namespace cprof::causal
