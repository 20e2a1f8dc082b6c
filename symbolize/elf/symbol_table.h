#pragma once
// Function names from ELF symbol tables (.symtab, .dynsym, and the .symtab inside
// .gnu_debugdata), for stripped binaries and for the outermost frame's name.

#include <cstdint>
#include <string>
#include <vector>

#include "symbolize/elf/elf_file.h"

namespace cprof::symbolize {

class SymbolTable {
 public:
  struct Entry {
    uint64_t addr = 0, size = 0;
    const char* name = nullptr;  // points into the ElfFile's string table; keep it open
    // For a local symbol, the STT_FILE symbol before it (its source file's name), which
    // llvm-symbolizer prints when there is no line information.
    const char* file = nullptr;
  };

  // Adds the function and object symbols of `file`'s .symtab, or of its .dynsym when it
  // has no .symtab (the rule llvm-symbolizer follows). `dynsym_too` also adds .dynsym.
  void add(const ElfFile& file, bool dynsym_too = false);
  // Sorts and keeps one entry per address (the largest). Call once after all add().
  void finish();

  // The symbol covering addr: the nearest one at or below it whose size reaches addr
  // (a zero-size symbol covers everything up to the next symbol, as in llvm-symbolizer).
  const Entry* find(uint64_t addr) const;
  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  bool add_section(const ElfFile& file, uint32_t type);
  std::vector<Entry> entries_;
};

// Opens the xz-compressed mini debug info in .gnu_debugdata (Fedora-style "MiniDebugInfo"),
// an ELF file with a .symtab of the functions .dynsym lacks. nullptr when absent.
Result<std::unique_ptr<ElfFile>> open_gnu_debugdata(const ElfFile& file);

}  // namespace cprof::symbolize
