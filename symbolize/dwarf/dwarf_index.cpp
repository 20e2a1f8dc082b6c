#include "symbolize/dwarf/dwarf_index.h"

#include <dwarf.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cprof::symbolize {
namespace {

std::string dw_error() { return dwarf_errmsg(-1); }

const char* string_attribute(Dwarf_Die* die, unsigned name, unsigned gnu_name) {
  Dwarf_Attribute attr;
  if (dwarf_attr(die, name, &attr) == nullptr &&
      (gnu_name == 0 || dwarf_attr(die, gnu_name, &attr) == nullptr)) {
    return nullptr;
  }
  return dwarf_formstring(&attr);
}

// The places libdw opens a skeleton unit's .dwo from (its name as written, joined to the
// compilation directory, and beside the file read): the first that is there and is not a
// regular file (a FIFO would block libdw's open forever), or "".
std::string dwo_that_is_not_a_file(Dwarf_Die* cu_die, const std::string& file_path) {
  const char* dwo = string_attribute(cu_die, DW_AT_dwo_name, DW_AT_GNU_dwo_name);
  if (dwo == nullptr || *dwo == '\0') return "";
  std::vector<std::string> candidates{dwo};
  if (dwo[0] != '/') {
    if (const char* dir = string_attribute(cu_die, DW_AT_comp_dir, 0); dir != nullptr) {
      candidates.push_back(std::string(dir) + "/" + dwo);
    }
    const size_t slash = file_path.rfind('/');
    candidates.push_back(
        (slash == std::string::npos ? std::string(".") : file_path.substr(0, slash)) + "/" + dwo);
  }
  for (const auto& path : candidates) {
    if (exists_but_not_regular(path)) return path;
  }
  return "";
}

}  // namespace

DwarfIndex::~DwarfIndex() {
  units_.clear();  // details point into libdw memory: drop them first
  dwo_units_.clear();
  if (dwarf_ != nullptr) dwarf_end(dwarf_);
}

Result<std::unique_ptr<DwarfIndex>> DwarfIndex::build(const ElfFile& file) {
  Dwarf* dwarf = dwarf_begin_elf(file.elf(), DWARF_C_READ, nullptr);
  if (dwarf == nullptr) return Error{file.path() + ": cannot read DWARF: " + dw_error()};
  std::unique_ptr<DwarfIndex> index(new DwarfIndex(dwarf, file));

  Dwarf_CU* cu = nullptr;
  Dwarf_CU* next = nullptr;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  Dwarf_Die cu_die;
  int rc = 0;
  while ((rc = dwarf_get_units(dwarf, cu, &next, &version, &unit_type, &cu_die, nullptr)) == 0) {
    cu = next;
    if (unit_type != DW_UT_compile && unit_type != DW_UT_partial && unit_type != DW_UT_skeleton) {
      continue;  // type units hold no code
    }
    auto unit_no = static_cast<uint32_t>(index->units_.size());
    Unit unit;
    unit.cu = cu;
    unit.cu_die = cu_die;
    unit.skeleton = unit_type == DW_UT_skeleton;
    index->units_.push_back(std::move(unit));

    size_t before = index->ranges_.size();
    Dwarf_Addr base = 0, low = 0, high = 0;
    ptrdiff_t offset = 0;
    while ((offset = dwarf_ranges(&cu_die, offset, &base, &low, &high)) > 0) {
      if (low < high && low != 0) index->ranges_.push_back({low, high, unit_no});
    }
    if (index->ranges_.size() == before) {
      // Some units (hand-written assembly, old compilers) have no DW_AT_ranges: take the
      // address span of each line-table sequence instead.
      Unit& u = index->units_.back();
      index->load_detail(u);
      if (u.detail->lines) {
        auto rows = u.detail->lines->rows();
        uint64_t start = 0;
        bool open = false;
        for (const auto& row : rows) {
          if (!open) {
            start = row.addr;
            open = true;
          }
          if (row.end_sequence) {
            if (start < row.addr && start != 0) index->ranges_.push_back({start, row.addr, unit_no});
            open = false;
          }
        }
      }
    }
  }
  if (rc < 0) index->note("reading unit headers: " + dw_error() + " (later units skipped)");
  std::sort(index->ranges_.begin(), index->ranges_.end(),
            [](const UnitRange& a, const UnitRange& b) { return a.low < b.low; });
  return index;
}

void DwarfIndex::note(const std::string& message) {
  std::string line = path_ + ": " + message;
  if (std::find(diagnostics_.begin(), diagnostics_.end(), line) == diagnostics_.end()) {
    diagnostics_.push_back(std::move(line));
  }
}

void DwarfIndex::load_detail(Unit& unit) {
  if (unit.detail) return;
  unit.detail = std::make_unique<UnitDetail>();
  UnitDetail& d = *unit.detail;
  const char* cu_name = dwarf_diename(&unit.cu_die);
  std::string where = std::string("unit ") + (cu_name ? cu_name : "?");

  if (auto lines = LineTable::load(&unit.cu_die)) {
    d.lines = std::move(lines).value();
  } else {
    note(where + ": " + lines.error().message);
  }

  Dwarf_Die scope_die = unit.cu_die;
  if (unit.skeleton) {
    if (const std::string odd = dwo_that_is_not_a_file(&unit.cu_die, path_); !odd.empty()) {
      note(where + ": split DWARF file " + odd +
           " is not a regular file: not read, no function names or inline frames from it");
      d.split_missing = true;
      return;
    }
    Dwarf_Die sub{};
    if (dwarf_cu_info(unit.cu, nullptr, nullptr, nullptr, &sub, nullptr, nullptr, nullptr) != 0 ||
        sub.cu == nullptr) {
      if (const DwoUnit* dwo = from_package(unit, where)) sub = dwo->die;
    }
    if (sub.cu == nullptr) {
      Dwarf_Attribute attr;
      const char* dwo = nullptr;
      if (dwarf_attr(&unit.cu_die, DW_AT_dwo_name, &attr) != nullptr ||
          dwarf_attr(&unit.cu_die, DW_AT_GNU_dwo_name, &attr) != nullptr) {
        dwo = dwarf_formstring(&attr);
      }
      note(where + ": split DWARF file " + (dwo ? dwo : "?") +
           " not found: no function names or inline frames from it");
      d.split_missing = true;
      return;
    }
    scope_die = sub;
  }
  if (auto scopes = ScopeTree::load(&scope_die, &unit.cu_die)) {
    d.scopes = std::move(scopes).value();
  } else {
    note(where + ": " + scopes.error().message);
  }
}

const DwoUnit* DwarfIndex::from_package(Unit& unit, const std::string& where) {
  if (!dwp_tried_) {
    dwp_tried_ = true;
    for (const auto& path : dwp_candidates_) {
      if (access(path.c_str(), R_OK) != 0) continue;
      if (auto dwp = DwpFile::open(path)) {
        dwp_ = std::move(dwp).value();
        break;
      } else {
        note(dwp.error().message);
      }
    }
  }
  if (!dwp_) return nullptr;
  SkeletonBases skel;
  Dwarf_Half version = 5;
  dwarf_cu_info(unit.cu, &version, nullptr, nullptr, nullptr, &skel.dwo_id, nullptr, nullptr);
  skel.version = version;
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (skel.dwo_id == 0 && dwarf_attr(&unit.cu_die, DW_AT_GNU_dwo_id, &attr) != nullptr &&
      dwarf_formudata(&attr, &value) == 0) {
    skel.dwo_id = value;
  }
  for (int at : {DW_AT_addr_base, DW_AT_GNU_addr_base}) {
    if (dwarf_attr(&unit.cu_die, at, &attr) != nullptr && dwarf_formudata(&attr, &value) == 0) {
      skel.addr_base = value;
    }
  }
  if (dwarf_attr(&unit.cu_die, DW_AT_GNU_ranges_base, &attr) != nullptr &&
      dwarf_formudata(&attr, &value) == 0) {
    skel.ranges_base = value;
  }
  auto dwo = dwp_->unit(skel, *file_);
  if (!dwo) {
    note(where + ": " + dwo.error().message);
    return nullptr;
  }
  dwo_units_.push_back(std::move(dwo).value());
  return dwo_units_.back().get();
}

const UnitDetail* DwarfIndex::unit_for(uint64_t addr) {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), addr,
                             [](uint64_t a, const UnitRange& r) { return a < r.low; });
  // Unit ranges rarely overlap; when they do, the nearest lower start that contains addr
  // wins, so look back a few entries.
  for (int back = 0; back < 4 && it != ranges_.begin(); ++back) {
    --it;
    if (addr < it->high) return unit(it->unit);
  }
  return nullptr;
}

const UnitDetail* DwarfIndex::unit(size_t i) {
  Unit& u = units_[i];
  load_detail(u);
  return u.detail.get();
}

}  // namespace cprof::symbolize
