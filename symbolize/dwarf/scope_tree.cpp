#include "symbolize/dwarf/scope_tree.h"

#include <dwarf.h>

#include <algorithm>
#include <set>
#include <string>

#include "symbolize/dwarf/source_path.h"

namespace cprof::symbolize {
namespace {

// Real programs nest DIEs a few dozen deep; a corrupt file could nest without end.
constexpr uint32_t kMaxDepth = 1024;

struct TooDeep {};

// The name llvm-symbolizer prints with --functions=linkage: the linkage name, else the
// short name, each looked up through DW_AT_abstract_origin and DW_AT_specification.
const char* scope_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name}) {
    if (dwarf_attr_integrate(die, at, &attr) != nullptr) {
      if (const char* s = dwarf_formstring(&attr)) return s;
    }
  }
  return nullptr;
}

uint32_t udata(Dwarf_Die* die, int at) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (dwarf_attr(die, at, &attr) == nullptr || dwarf_formudata(&attr, &value) != 0) return 0;
  return static_cast<uint32_t>(value);
}

// The same, looked up through DW_AT_abstract_origin and DW_AT_specification, from a DIE
// of the same unit only (another unit's DW_AT_decl_file counts in its own file table).
uint32_t integrated_udata(Dwarf_Die* die, int at) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (dwarf_attr_integrate(die, at, &attr) == nullptr || attr.cu != die->cu ||
      dwarf_formudata(&attr, &value) != 0) {
    return 0;
  }
  return static_cast<uint32_t>(value);
}

}  // namespace

Result<ScopeTree> ScopeTree::load(Dwarf_Die* unit_die, Dwarf_Die* files_die) {
  ScopeTree tree;
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if ((dwarf_getsrcfiles(unit_die, &files, &count) == 0 && count > 0) ||
      (files_die != nullptr && files_die != unit_die &&
       dwarf_getsrcfiles(files_die, &files, &count) == 0)) {
    tree.files_.resize(count);
    // A split unit's compilation directory is on its skeleton (files_die).
    const char* comp_dir = compilation_directory(unit_die);
    if (comp_dir == nullptr) comp_dir = compilation_directory(files_die);
    for (size_t i = 0; i < count; ++i) {
      tree.files_[i] = source_path(dwarf_filesrc(files, i, nullptr, nullptr), comp_dir);
    }
  }
  std::vector<uint32_t> depths;
  try {
    tree.walk(unit_die, -1, 0, depths);
  } catch (const TooDeep&) {
    return Error{"DIE tree nested more than " + std::to_string(kMaxDepth) + " levels: corrupt DWARF"};
  }
  tree.build_segments(depths);
  return tree;
}

void ScopeTree::add_scope(Dwarf_Die* die, int32_t parent, bool inlined, uint32_t depth,
                          std::vector<uint32_t>& depths) {
  auto index = static_cast<int32_t>(scopes_.size());
  size_t first_interval = intervals_.size();
  Dwarf_Addr base = 0, low = 0, high = 0;
  ptrdiff_t offset = 0;
  while ((offset = dwarf_ranges(die, offset, &base, &low, &high)) > 0) {
    // Functions dropped by the linker (--gc-sections, COMDAT) keep ranges at 0.
    if (low < high && low != 0) intervals_.push_back({low, high, index});
  }
  if (intervals_.size() == first_interval) return;  // no code: a declaration or abstract copy
  Scope scope;
  scope.name = scope_name(die);
  scope.parent = parent;
  scope.inlined = inlined;
  scope.decl_file = integrated_udata(die, DW_AT_decl_file);
  scope.decl_line = scope.decl_file != 0 ? integrated_udata(die, DW_AT_decl_line) : 0;
  if (inlined) {
    scope.call_file = udata(die, DW_AT_call_file);
    scope.call_line = udata(die, DW_AT_call_line);
    scope.call_column = udata(die, DW_AT_call_column);
  }
  scopes_.push_back(scope);
  depths.push_back(depth);
  walk(die, index, depth + 1, depths);
}

void ScopeTree::walk(Dwarf_Die* die, int32_t parent, uint32_t depth, std::vector<uint32_t>& depths) {
  if (depth > kMaxDepth) throw TooDeep{};
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    switch (dwarf_tag(&child)) {
      case DW_TAG_subprogram:
        // llvm-symbolizer ends an inline chain at the first subprogram, nested or not.
        add_scope(&child, -1, false, depth, depths);
        break;
      case DW_TAG_inlined_subroutine:
        add_scope(&child, parent, true, depth, depths);
        break;
      case DW_TAG_lexical_block:
      case DW_TAG_try_block:
      case DW_TAG_catch_block:
      case DW_TAG_namespace:
      case DW_TAG_class_type:
      case DW_TAG_structure_type:
      case DW_TAG_union_type:
      case DW_TAG_module:
        walk(&child, parent, depth + 1, depths);
        break;
      default:
        break;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// Flattens nested ranges into segments where each address maps to its deepest scope.
void ScopeTree::build_segments(const std::vector<uint32_t>& depths) {
  struct Event {
    uint64_t addr;
    bool start;
    int32_t scope;
  };
  std::vector<Event> events;
  events.reserve(intervals_.size() * 2);
  for (const auto& iv : intervals_) {
    events.push_back({iv.low, true, iv.scope});
    events.push_back({iv.high, false, iv.scope});
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.addr < b.addr; });
  std::multiset<std::pair<uint32_t, int32_t>> active;  // (depth, scope): last is innermost
  for (size_t i = 0; i < events.size();) {
    uint64_t addr = events[i].addr;
    for (; i < events.size() && events[i].addr == addr; ++i) {
      std::pair<uint32_t, int32_t> key{depths[static_cast<size_t>(events[i].scope)],
                                       events[i].scope};
      if (events[i].start) {
        active.insert(key);
      } else if (auto it = active.find(key); it != active.end()) {
        active.erase(it);
      }
    }
    int32_t top = active.empty() ? -1 : active.rbegin()->second;
    if (segments_.empty() || segments_.back().scope != top) segments_.push_back({addr, top});
  }
}

int32_t ScopeTree::find(uint64_t addr) const {
  auto it = std::upper_bound(segments_.begin(), segments_.end(), addr,
                             [](uint64_t a, const Segment& s) { return a < s.start; });
  if (it == segments_.begin()) return -1;
  return std::prev(it)->scope;
}

const char* ScopeTree::call_file_name(uint32_t index) const {
  return index < files_.size() ? files_[index].c_str() : "";
}

}  // namespace cprof::symbolize
