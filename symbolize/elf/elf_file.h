#pragma once
// An open ELF file (libelf handle + the descriptor or memory behind it), and the few
// facts symbolize/ needs from it: build-id, .gnu_debuglink, sections, executable ranges.

#include <gelf.h>
#include <libelf.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbolize/result.h"
#include "symbolize/types.h"

namespace cprof::symbolize {

struct Debuglink {
  std::string name;  // file name stored in .gnu_debuglink
  uint32_t crc = 0;  // CRC32 of the whole debug file
};

class ElfFile {
 public:
  // Opens and validates an ELF file. Errors name the file and what is wrong with it.
  static Result<std::unique_ptr<ElfFile>> open(const std::string& path);
  // Wraps an Elf handle that lives in memory, e.g. decompressed .gnu_debugdata. Takes
  // ownership of `elf` and of `fd` (may be -1).
  static Result<std::unique_ptr<ElfFile>> adopt(Elf* elf, int fd, std::string name);

  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  Elf* elf() const { return elf_; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  std::string build_id() const;  // lowercase hex, empty when there is no NT_GNU_BUILD_ID
  std::optional<Debuglink> debuglink() const;
  Elf_Scn* section(std::string_view name) const;  // nullptr when absent
  // True when the file carries DWARF of its own (.debug_info or .debug_line, also
  // compressed), as opposed to a stripped file or one with only a debuglink.
  bool has_dwarf() const;
  // Allocated executable sections (.text, .plt, .init, ...) as address ranges, sorted.
  const std::vector<AddressRange>& exec_ranges() const { return exec_; }
  bool is_executable_address(uint64_t addr) const;

 private:
  ElfFile(Elf* elf, int fd, std::string path);
  Result<bool> validate();

  Elf* elf_ = nullptr;
  int fd_ = -1;
  std::string path_;
  size_t shstrndx_ = 0;
  std::vector<AddressRange> exec_;
};

// Opens `path` for reading if it is a regular file (following links), without ever
// blocking: a FIFO, a device or a directory is refused. -1 and `why` (when given) else.
int open_regular_file(const std::string& path, std::string* why);
// Whether `path` names something that is not a regular file (a FIFO, a directory, ...):
// a file libdw would open itself (a split DWARF .dwo) is checked with this first.
bool exists_but_not_regular(const std::string& path);

// CRC32 of a whole file as .gnu_debuglink stores it (zlib's crc32); nullopt if unreadable
// or not a regular file.
std::optional<uint32_t> file_crc32(const std::string& path);

}  // namespace cprof::symbolize
