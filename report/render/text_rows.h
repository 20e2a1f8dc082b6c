#pragma once
// The last column of a flat text table's row, a function or a line with its location:
// shared by the sampled profile's flat table and the GPU launch-site table.

#include <cstddef>
#include <cstdint>
#include <string>

#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct RowLabel {
  std::string name;   // by line: "file:line" (or the line's label); by function: its name
  std::string where;  // by line: the line's function; by function: its "file:line"; may be empty
};

// The label of row `id` (a LineId by line, else a FunctionId).
RowLabel row_label(const SymbolTable& table, uint32_t id, bool by_line);

// The column, at most `rest` characters. By line: the location, padded to `line_width`
// (0: its own width), then its function in what is left. By function: the function,
// shortened to fit, then its location in at most `where_width`.
std::string row_cells(const RowLabel& label, bool by_line, size_t rest, size_t where_width,
                      size_t line_width);

}  // namespace cprof::report
