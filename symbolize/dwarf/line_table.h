#pragma once
// One compile unit's line table, copied out of libdw once into a flat sorted array so
// that each lookup is a binary search.

#include <elfutils/libdw.h>

#include <cstdint>
#include <span>
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
  const char* file(uint32_t index) const { return files_[index]; }
  const std::vector<const char*>& files() const { return files_; }

 private:
  std::vector<LineRow> rows_;
  std::vector<uint64_t> addrs_;  // rows_[i].addr, dense for the binary search
  std::vector<const char*> files_;  // full paths, owned by libdw
};

}  // namespace cprof::symbolize
