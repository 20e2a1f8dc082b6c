#pragma once
// One compile unit's line table, copied out of libdw once into a flat sorted array so
// that each lookup is a binary search.

#include <elfutils/libdw.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "symbolize/result.h"

namespace cprof::symbolize {

struct LineRow {
  uint64_t addr = 0;
  uint32_t file = 0;  // index into LineTable::files()
  uint32_t line = 0;
  uint32_t column = 0;
  bool end_sequence = false;
};

// Rows with line 0 (code the compiler could not give a source line, e.g. a register copy
// it inserted) that lie between two rows of one file and line, in one sequence, take that
// line: the instructions sit inside that line's code, and a sample there is that line's
// work. Clang -O2 gives line 0 to one instruction in six of a simple loop; left as they
// are, those samples belong to no line, and a causal experiment on the loop's line
// misses them. Line 0 between two different lines stays 0 (it may be either's).
void attribute_enclosed_line_zero(std::span<LineRow> rows);

class LineTable {
 public:
  // Reads the line table of a compile unit (the skeleton unit for split DWARF: its line
  // table stays in the executable).
  static Result<LineTable> load(Dwarf_Die* cu_die);

  // The row in effect at addr: the last row at or below it, unless that row ends a
  // sequence (addr is past the code). For several rows at one address, the last one, as
  // llvm-symbolizer does.
  const LineRow* find(uint64_t addr) const;
  std::span<const LineRow> rows() const { return rows_; }
  const char* file(uint32_t index) const { return files_[index].c_str(); }
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::vector<LineRow> rows_;
  std::vector<uint64_t> addrs_;  // rows_[i].addr, dense for the binary search
  // Full paths: relative names joined to the unit's compilation directory (source_path.h).
  std::vector<std::string> files_;
};

}  // namespace cprof::symbolize
