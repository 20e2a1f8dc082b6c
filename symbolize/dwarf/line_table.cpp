#include "symbolize/dwarf/line_table.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "symbolize/dwarf/source_path.h"

namespace cprof::symbolize {

Result<LineTable> LineTable::load(Dwarf_Die* cu_die) {
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  if (dwarf_getsrclines(cu_die, &lines, &count) != 0) {
    return Error{std::string("line table: ") + dwarf_errmsg(-1)};
  }
  LineTable table;
  table.rows_.reserve(count);
  // libdw returns every file name as its own pointer per file entry; intern them so that
  // rows carry a small index.
  std::unordered_map<const char*, uint32_t> file_index;
  const char* comp_dir = compilation_directory(cu_die);
  for (size_t i = 0; i < count; ++i) {
    Dwarf_Line* line = dwarf_onesrcline(lines, i);
    if (line == nullptr) continue;
    LineRow row;
    Dwarf_Addr addr = 0;
    int lineno = 0, col = 0;
    bool end = false;
    if (dwarf_lineaddr(line, &addr) != 0) continue;
    dwarf_lineno(line, &lineno);
    dwarf_linecol(line, &col);
    dwarf_lineendsequence(line, &end);
    const char* src = dwarf_linesrc(line, nullptr, nullptr);
    if (src == nullptr) src = "";
    auto [it, inserted] = file_index.try_emplace(src, static_cast<uint32_t>(table.files_.size()));
    if (inserted) table.files_.push_back(source_path(src, comp_dir));
    row.addr = addr;
    row.file = it->second;
    row.line = static_cast<uint32_t>(std::max(lineno, 0));
    row.column = static_cast<uint32_t>(std::max(col, 0));
    row.end_sequence = end;
    table.rows_.push_back(row);
  }
  // libdw sorts by address already (end_sequence first among equals, then sequence
  // order); a stable sort keeps that order if a future libdw does not.
  if (!std::is_sorted(table.rows_.begin(), table.rows_.end(),
                      [](const LineRow& a, const LineRow& b) { return a.addr < b.addr; })) {
    std::stable_sort(table.rows_.begin(), table.rows_.end(),
                     [](const LineRow& a, const LineRow& b) { return a.addr < b.addr; });
  }
  attribute_enclosed_line_zero(table.rows_);
  table.addrs_.reserve(table.rows_.size());
  for (const auto& row : table.rows_) table.addrs_.push_back(row.addr);
  return table;
}

void attribute_enclosed_line_zero(std::span<LineRow> rows) {
  for (size_t i = 1; i + 1 < rows.size(); ++i) {
    LineRow& r = rows[i];
    const LineRow& before = rows[i - 1];
    const LineRow& after = rows[i + 1];
    // `before` ending a sequence would put r at the start of the next one; `after` ending
    // it is only the end address, not a line.
    if (r.line != 0 || r.end_sequence || before.end_sequence || after.end_sequence) continue;
    if (before.line == 0 || before.line != after.line || before.file != after.file) continue;
    r.line = before.line;
    r.file = before.file;
    r.column = before.column;
  }
}

const LineRow* LineTable::find(uint64_t addr) const {
  auto it = std::upper_bound(addrs_.begin(), addrs_.end(), addr);
  if (it == addrs_.begin()) return nullptr;
  const LineRow& row = rows_[static_cast<size_t>(it - addrs_.begin()) - 1];
  return row.end_sequence ? nullptr : &row;
}

}  // namespace cprof::symbolize
