#pragma once
// Split DWARF packages (.dwp), read by hand: libdw learned .dwp in elfutils 0.191 and
// Debian bookworm ships 0.188. For a skeleton unit, the package's unit index
// (.debug_cu_index, DWARF 5 or the GNU DWARF 4 "version 2" layout) gives the unit's slice
// of each section; the slices, plus the skeleton file's .debug_addr (and DWARF 4
// .debug_ranges) from the skeleton's bases, become a small in-memory .dwo file that libdw
// opens on its own.

#include <elfutils/libdw.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "symbolize/elf/elf_file.h"
#include "symbolize/result.h"

namespace cprof::symbolize {

// One split unit cut out of a package: owns the image, the Elf and the Dwarf over it.
struct DwoUnit {
  std::string image;
  Elf* elf = nullptr;
  Dwarf* dwarf = nullptr;
  Dwarf_Die die{};  // the split compile unit's DIE
  ~DwoUnit();
};

// What the skeleton unit tells about its split unit.
struct SkeletonBases {
  uint64_t dwo_id = 0;
  uint64_t addr_base = 0;    // DW_AT_addr_base / DW_AT_GNU_addr_base
  uint64_t ranges_base = 0;  // DW_AT_GNU_ranges_base (DWARF 4 only)
  uint16_t version = 5;
};

class DwpFile {
 public:
  static Result<std::unique_ptr<DwpFile>> open(const std::string& path);
  // The split unit with skel.dwo_id; `skeleton_file` holds .debug_addr/.debug_ranges.
  Result<std::unique_ptr<DwoUnit>> unit(const SkeletonBases& skel, const ElfFile& skeleton_file);
  const std::string& path() const { return file_->path(); }

 private:
  struct Contribution {
    uint64_t offset, size;
  };
  explicit DwpFile(std::unique_ptr<ElfFile> file) : file_(std::move(file)) {}
  Result<bool> read_index();

  std::unique_ptr<ElfFile> file_;
  uint32_t index_version_ = 0;
  // dwo_id -> (section name -> contribution)
  std::map<uint64_t, std::map<std::string, Contribution>> units_;
};

}  // namespace cprof::symbolize
