#pragma once
// Where the time went by module (the program, each library, the vDSO, JIT code): the
// functions' self time summed by the module they are in (`causal-report --by module`).
// Derived from the flat profile, so free next to it. A frame no module holds is
// "[unknown]".

#include <string>
#include <vector>

#include "report/profile/flat_profile.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct ModuleRow {
  std::string module;           // path; "[unknown]" for code no module holds
  Measure self;                 // samples whose innermost frame is in it
  Measure unnamed;              // of those, the ones in functions its symbols do not name
  size_t functions = 0;         // its functions with self time
  FunctionId top_function = 0;  // the one with the most
  uint64_t top_function_ns = 0;
};

// Sorted by self time, then samples, then path.
std::vector<ModuleRow> build_module_view(const FlatProfile& flat, const SymbolTable& symbols);

// The self time of the rows a cut table leaves out (rows[shown..]), for its "... N more".
uint64_t self_ns_after(const std::vector<ModuleRow>& rows, size_t shown);

}  // namespace cprof::report
