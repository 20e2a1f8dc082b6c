#include "report/render/text_rows.h"

#include <fmt/format.h>

#include "report/render/text_util.h"

namespace cprof::report {

RowLabel row_label(const SymbolTable& table, uint32_t id, bool by_line) {
  RowLabel label;
  if (by_line) {
    const auto& l = table.lines[id];
    label.name = l.file.empty() ? table.line_label(id)
                                : fmt::format("{}:{}", base_name(l.file), l.line);
    if (!l.file.empty()) label.where = table.functions[l.function].name;
  } else {
    const auto& f = table.functions[id];
    label.name = f.name;
    if (!f.file.empty()) label.where = fmt::format("{}:{}", base_name(f.file), f.line);
  }
  return label;
}

std::string row_cells(const RowLabel& label, bool by_line, size_t rest, size_t where_width,
                      size_t line_width) {
  if (by_line) {
    // A line's location is short; its function gets what is left.
    const std::string loc = fit_left(label.name, where_width);
    if (label.where.empty()) return loc;
    const size_t width = line_width == 0 ? loc.size() : line_width;
    return fmt::format("{:<{}}  {}", loc, width, fit_right(label.where, rest - width - 2));
  }
  const std::string loc = fit_left(label.where, where_width);
  const size_t name_width = loc.empty() ? rest : rest - loc.size() - 2;
  std::string cells = compact_function_name(label.name, name_width);
  if (!loc.empty()) cells += std::string(name_width - cells.size() + 2, ' ') + loc;
  return cells;
}

}  // namespace cprof::report
