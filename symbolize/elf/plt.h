#pragma once
// PLT stubs (.plt, .plt.sec, .plt.got, .plt.bnd) and the functions they jump to. A stub has
// no symbol and no DWARF of its own, so without this a sample in one is named after the
// symbol before it, usually _init. perf and objdump call the stub "puts@plt"; so do we
// (Module names it; docs/symbolize.md).

#include <cstdint>
#include <vector>

#include "symbolize/elf/elf_file.h"
#include "symbolize/types.h"

namespace cprof::symbolize {

class PltTable {
 public:
  struct Stub {
    uint64_t low = 0, high = 0;    // [low, high) of one stub
    const char* symbol = nullptr;  // the dynamic symbol it jumps to (in the file's strings)
    uint64_t ifunc = 0;            // for an R_X86_64_IRELATIVE slot: the resolver
  };

  PltTable() = default;
  // The PLT sections of `file`, from its section headers (cheap). The stubs are decoded
  // on the first find(), so a module with no sample in its PLT never pays for it.
  // `file` must outlive the table.
  explicit PltTable(const ElfFile* file);

  // True when addr is in a PLT section, whether or not its stub can be decoded.
  bool contains(uint64_t addr) const;
  // The stub at addr with a known target, or nullptr: the lazy-binding header (PLT0),
  // padding, a file whose PLT contents are absent (a separate debug file) or whose
  // machine is not x86-64. Not thread-safe (Module holds its lock).
  const Stub* find(uint64_t addr);

 private:
  void decode();
  void name_ifuncs();

  const ElfFile* file_ = nullptr;
  std::vector<AddressRange> sections_;  // sorted
  std::vector<Stub> stubs_;             // sorted, decoded on first use
  bool decoded_ = false;
};

}  // namespace cprof::symbolize
