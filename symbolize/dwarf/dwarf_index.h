#pragma once
// The per-module DWARF index: a sorted map address range -> compile unit, built once
// from the unit headers, and per unit (built on first use) its line table and scope tree.
// Not thread-safe: libdw 0.188 is not, so the owning Module serializes calls.

#include <elfutils/libdw.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symbolize/dwarf/dwp.h"
#include "symbolize/dwarf/line_table.h"
#include "symbolize/dwarf/scope_tree.h"
#include "symbolize/elf/elf_file.h"
#include "symbolize/result.h"

namespace cprof::symbolize {

struct UnitDetail {
  std::optional<LineTable> lines;    // nullopt: the unit has no readable line table
  std::optional<ScopeTree> scopes;   // nullopt: no DIEs (e.g. missing .dwo)
  bool split_missing = false;        // skeleton unit whose .dwo/.dwp part was not found
};

class DwarfIndex {
 public:
  // `file` must outlive the index. Fails only when the file's DWARF cannot be opened at
  // all; problems in single units become diagnostics and that unit is skipped.
  static Result<std::unique_ptr<DwarfIndex>> build(const ElfFile& file);
  ~DwarfIndex();
  DwarfIndex(const DwarfIndex&) = delete;
  DwarfIndex& operator=(const DwarfIndex&) = delete;

  // The unit whose ranges contain addr, its detail loaded; nullptr when none.
  const UnitDetail* unit_for(uint64_t addr);
  size_t unit_count() const { return units_.size(); }
  const UnitDetail* unit(size_t i);  // loads it if needed

  // Where to look for a .dwp package when a split unit's .dwo is not found (the first
  // existing one is used): e.g. MODULE.dwp and DEBUGFILE.dwp.
  void set_dwp_candidates(std::vector<std::string> paths) { dwp_candidates_ = std::move(paths); }

  // Problems met so far (corrupt units, missing .dwo files), one line each.
  const std::vector<std::string>& diagnostics() const { return diagnostics_; }

 private:
  struct Unit {
    Dwarf_CU* cu = nullptr;
    Dwarf_Die cu_die{};
    bool skeleton = false;
    std::unique_ptr<UnitDetail> detail;
  };
  struct UnitRange {
    uint64_t low, high;
    uint32_t unit;
  };

  DwarfIndex(Dwarf* dwarf, const ElfFile& file) : dwarf_(dwarf), file_(&file), path_(file.path()) {}
  void load_detail(Unit& unit);
  const DwoUnit* from_package(Unit& unit, const std::string& where);
  void note(const std::string& message);

  Dwarf* dwarf_ = nullptr;
  const ElfFile* file_ = nullptr;
  std::string path_;
  std::vector<std::string> dwp_candidates_;
  bool dwp_tried_ = false;
  std::unique_ptr<DwpFile> dwp_;
  std::vector<std::unique_ptr<DwoUnit>> dwo_units_;  // split units cut out of dwp_
  std::vector<Unit> units_;
  std::vector<UnitRange> ranges_;  // sorted by low
  std::vector<std::string> diagnostics_;
};

}  // namespace cprof::symbolize
