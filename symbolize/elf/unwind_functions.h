#pragma once
// Function bounds from the unwind table, for code that no symbol names. A stripped library
// (Debian's liblzma, most vendor libraries) keeps only its exported symbols, so a sample in
// one of its internal functions has no name; shown per address, the time of one function
// is spread over dozens of rows. Its .eh_frame still has one FDE per function, each with
// the function's start and length (the unwinder needs them), so the report can count the
// samples per function and name the function by where it starts (docs/symbolize.md).

#include <cstdint>
#include <vector>

#include "symbolize/elf/elf_file.h"
#include "symbolize/types.h"

namespace cprof::symbolize {

class UnwindFunctions {
 public:
  UnwindFunctions() = default;
  // The FDEs of `file`'s .eh_frame, read on the first find(), so a module whose every
  // sample has a name never pays for it. `file` must outlive the table.
  explicit UnwindFunctions(const ElfFile* file) : file_(file) {}

  // The [start, end) of the FDE that covers addr, or nullptr. Not thread-safe (Module
  // holds its lock).
  const AddressRange* find(uint64_t addr);

 private:
  void read();

  const ElfFile* file_ = nullptr;
  std::vector<AddressRange> functions_;  // sorted by low, not overlapping
  bool read_ = false;
};

}  // namespace cprof::symbolize
