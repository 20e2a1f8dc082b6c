#pragma once
// One compile unit's functions and inlined calls, read once from the DIE tree: every
// DW_TAG_subprogram with code and every DW_TAG_inlined_subroutine inside it, with their
// address ranges flattened into a sorted segment map (address -> innermost scope). A
// lookup is one binary search plus a walk up `parent`.

#include <elfutils/libdw.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "symbolize/result.h"
#include "symbolize/types.h"

namespace cprof::symbolize {

struct Scope {
  const char* name = nullptr;  // DW_AT_linkage_name, else DW_AT_name (raw, owned by libdw)
  int32_t parent = -1;         // enclosing scope; -1 for a DW_TAG_subprogram
  bool inlined = false;        // DW_TAG_inlined_subroutine
  // Where this inlined call sits in its caller (DW_AT_call_file/line/column).
  uint32_t call_file = 0, call_line = 0, call_column = 0;
  // Where the function is defined (DW_AT_decl_file/line, through DW_AT_abstract_origin
  // and DW_AT_specification); decl_line 0 when not known.
  uint32_t decl_file = 0, decl_line = 0;
  // The printed name, filled on first use by the owning Module (under its lock), so
  // that a lookup does not hash the raw name again.
  mutable const std::string* printed = nullptr;
};

class ScopeTree {
 public:
  // `unit_die` is the DIE holding the functions: the split unit for -gsplit-dwarf.
  // `files_die` gives the DW_AT_call_file table when unit_die has none of its own (a
  // split unit read without its skeleton, whose file table is the skeleton's).
  static Result<ScopeTree> load(Dwarf_Die* unit_die, Dwarf_Die* files_die = nullptr);

  // Innermost scope containing addr, or -1.
  int32_t find(uint64_t addr) const;
  const Scope& scope(int32_t i) const { return scopes_[static_cast<size_t>(i)]; }
  size_t size() const { return scopes_.size(); }
  // File name for a DW_AT_call_file index, or "" when out of range.
  const char* call_file_name(uint32_t index) const;

  // Every range of every scope, for the reverse lookup FUNCTION -> ranges.
  struct Interval {
    uint64_t low, high;
    int32_t scope;
  };
  std::span<const Interval> intervals() const { return intervals_; }

 private:
  void walk(Dwarf_Die* die, int32_t parent, uint32_t depth, std::vector<uint32_t>& depths);
  void add_scope(Dwarf_Die* die, int32_t parent, bool inlined, uint32_t depth,
                 std::vector<uint32_t>& depths);
  void build_segments(const std::vector<uint32_t>& depths);

  std::vector<Scope> scopes_;
  std::vector<Interval> intervals_;
  struct Segment {
    uint64_t start;
    int32_t scope;  // -1: gap between functions
  };
  std::vector<Segment> segments_;
  std::vector<std::string> files_;  // DW_AT_call_file index -> name (source_path.h)
};

}  // namespace cprof::symbolize
