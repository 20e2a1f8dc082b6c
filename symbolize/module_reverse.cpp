// The reverse lookups of Module: FILE:LINE -> address ranges and FUNCTION -> ranges.
// Both read every unit once (line tables and scope trees are cached like the forward ones).

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "symbolize/module.h"

namespace cprof::symbolize {
namespace {

// "b/c.cpp" matches "/a/b/c.cpp" but not "/a/xb/c.cpp": whole path components only.
bool suffix_match(std::string_view path, std::string_view suffix) {
  if (suffix.empty() || path.size() < suffix.size()) return false;
  if (path.substr(path.size() - suffix.size()) != suffix) return false;
  return path.size() == suffix.size() || suffix.front() == '/' ||
         path[path.size() - suffix.size() - 1] == '/';
}

std::string normal(const char* path) {
  return std::filesystem::path(path).lexically_normal().string();
}

std::vector<AddressRange> merge(std::vector<AddressRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.low < b.low; });
  std::vector<AddressRange> out;
  for (const auto& r : ranges) {
    if (!out.empty() && r.low <= out.back().high) {
      out.back().high = std::max(out.back().high, r.high);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// (function, inlined) -> ranges, as the reverse lookups of functions return them.
using FoundFunctions = std::map<std::pair<std::string, bool>, std::vector<AddressRange>>;

std::vector<FunctionRanges> to_function_ranges(FoundFunctions& found) {  // its ranges moved out
  std::vector<FunctionRanges> out;
  out.reserve(found.size());
  for (auto& [key, ranges] : found)
    out.push_back({key.first, merge(std::move(ranges)), key.second});
  return out;
}

}  // namespace

// An out-of-line body is named as lookup() names its frames, by the ELF symbol holding it
// where there is one: "(anonymous namespace)::f(int) (.constprop.0)" rather than
// DW_AT_name's "f". Else a symbol's own match in function_ranges() would make the same code
// a second location under another name, and the report, which names frames by the symbol,
// would find no sample in the first.
const std::string& Module::function_name(const Scope& scope, uint64_t low) {
  const SymbolTable::Entry* e = scope.inlined ? nullptr : symbols_.find(low);
  return e != nullptr ? name_of(e->name) : name_of(scope.name);
}

void Module::load_all_units() {
  if (!dwarf_) return;
  for (size_t i = 0; i < dwarf_->unit_count(); ++i) dwarf_->unit(i);
}

Result<std::vector<AddressRange>> Module::line_ranges(std::string_view file, uint32_t line,
                                                      LineCode code) {
  std::lock_guard lock(mu_);
  std::string where = ref_.path;
  if (status_ != Reason::ok) return Error{where + ": " + std::string(to_string(status_))};
  if (!dwarf_) return Error{where + ": no DWARF line information"};
  load_all_units();

  std::set<std::string> candidates;
  for (size_t u = 0; u < dwarf_->unit_count(); ++u) {
    const UnitDetail* d = dwarf_->unit(u);
    if (!d->lines) continue;
    for (const std::string& f : d->lines->files()) {
      if (suffix_match(f, file)) candidates.insert(normal(f.c_str()));
    }
  }
  std::string wanted(file);
  if (candidates.empty()) return Error{where + ": no source file matches '" + wanted + "'"};
  if (candidates.size() > 1) {
    std::string list;
    for (const auto& c : candidates) list += (list.empty() ? "" : ", ") + c;
    return Error{where + ": '" + wanted + "' is ambiguous; candidates: " + list};
  }
  const std::string& chosen = *candidates.begin();

  std::vector<AddressRange> ranges;
  std::set<uint32_t> lines_with_code;
  for (size_t u = 0; u < dwarf_->unit_count(); ++u) {
    const UnitDetail* d = dwarf_->unit(u);
    if (!d->lines) continue;
    std::vector<bool> is_file(d->lines->files().size());
    for (size_t f = 0; f < is_file.size(); ++f) {
      is_file[f] = suffix_match(d->lines->files()[f], file) &&
                   normal(d->lines->files()[f].c_str()) == chosen;
    }
    auto rows = d->lines->rows();
    for (size_t i = 0; i + 1 < rows.size(); ++i) {
      const LineRow& r = rows[i];
      // A row covers up to the next address; of several rows at one address only the
      // last is in effect, as in the forward lookup.
      if (r.end_sequence || !is_file[r.file] || rows[i + 1].addr <= r.addr) continue;
      lines_with_code.insert(r.line);
      if (r.line == line) ranges.push_back({r.addr, rows[i + 1].addr});
    }
  }
  // Code inlined from a call on the line is the line's too, as its total in the report
  // (an inlined frame's caller line is that call's line). A line can have only that: GCC
  // emits an out-of-line copy of a static inline function (bzip2's mainGtU) as an inlined
  // instance called from the function's own first line, which has no row of its own.
  for (size_t u = 0; code == LineCode::with_inlined_calls && u < dwarf_->unit_count(); ++u) {
    const UnitDetail* d = dwarf_->unit(u);
    if (!d->scopes) continue;
    for (const auto& iv : d->scopes->intervals()) {
      const Scope& sc = d->scopes->scope(iv.scope);
      if (!sc.inlined || sc.call_line != line) continue;
      const char* call_file = d->scopes->call_file_name(sc.call_file);
      if (suffix_match(call_file, file) && normal(call_file) == chosen) {
        ranges.push_back({iv.low, iv.high});
      }
    }
  }
  if (ranges.empty()) {
    std::string msg = where + ": " + chosen + ":" + std::to_string(line) + " has no code";
    auto above = lines_with_code.lower_bound(line);
    std::string near;
    if (above != lines_with_code.begin()) near += std::to_string(*std::prev(above));
    if (above != lines_with_code.end()) near += (near.empty() ? "" : ", ") + std::to_string(*above);
    if (!near.empty()) msg += "; nearest lines with code: " + near;
    return Error{msg};
  }
  return merge(std::move(ranges));
}

Result<std::vector<LineRanges>> Module::all_line_ranges() {
  std::lock_guard lock(mu_);
  std::string where = ref_.path;
  if (status_ != Reason::ok) return Error{where + ": " + std::string(to_string(status_))};
  if (!dwarf_) return Error{where + ": no DWARF line information"};
  load_all_units();
  std::map<std::pair<std::string, uint32_t>, std::vector<AddressRange>> by_line;
  for (size_t u = 0; u < dwarf_->unit_count(); ++u) {
    const UnitDetail* d = dwarf_->unit(u);
    if (!d->lines) continue;
    std::vector<std::string> names;
    for (const std::string& f : d->lines->files()) names.push_back(normal(f.c_str()));
    auto rows = d->lines->rows();
    for (size_t i = 0; i + 1 < rows.size(); ++i) {
      const LineRow& r = rows[i];
      // As in line_ranges(): a row covers up to the next address.
      if (r.end_sequence || r.line == 0 || r.file >= names.size() || rows[i + 1].addr <= r.addr) continue;
      by_line[{names[r.file], r.line}].push_back({r.addr, rows[i + 1].addr});
    }
  }
  std::vector<LineRanges> out;
  out.reserve(by_line.size());
  for (auto& [key, ranges] : by_line) {
    if (key.first.empty()) continue;
    out.push_back(LineRanges{key.first, key.second, merge(std::move(ranges))});
  }
  return out;
}

Result<std::vector<FunctionRanges>> Module::function_ranges(const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return Error{"bad function pattern '" + pattern + "': " + e.what()};
  }
  std::lock_guard lock(mu_);
  std::string where = ref_.path;
  if (status_ != Reason::ok) return Error{where + ": " + std::string(to_string(status_))};
  load_all_units();

  std::unordered_map<const char*, bool> matches;  // one regex run per distinct name
  auto match = [&](const char* raw) {
    auto [it, inserted] = matches.try_emplace(raw, false);
    if (inserted && raw != nullptr) it->second = std::regex_search(name_of(raw), re);
    return it->second;
  };
  FoundFunctions found;
  if (dwarf_) {
    for (size_t u = 0; u < dwarf_->unit_count(); ++u) {
      const UnitDetail* d = dwarf_->unit(u);
      if (!d->scopes) continue;
      for (const auto& iv : d->scopes->intervals()) {
        const Scope& s = d->scopes->scope(iv.scope);
        if (!match(s.name)) continue;
        found[{function_name(s, iv.low), s.inlined}].push_back({iv.low, iv.high});
      }
    }
  }
  for (const auto& e : symbols_.entries()) {
    if (e.size > 0 && layout_->is_executable_address(e.addr) && match(e.name)) {
      found[{name_of(e.name), false}].push_back({e.addr, e.addr + e.size});
    }
  }
  if (found.empty()) return Error{where + ": no function matches /" + pattern + "/"};
  return to_function_ranges(found);
}

std::vector<FunctionRanges> Module::functions_defined_at(std::string_view file, uint32_t line) {
  std::lock_guard lock(mu_);
  if (status_ != Reason::ok || !dwarf_ || line == 0) return {};
  load_all_units();
  FoundFunctions found;
  for (size_t u = 0; u < dwarf_->unit_count(); ++u) {
    const UnitDetail* d = dwarf_->unit(u);
    if (!d->scopes) continue;
    for (const auto& iv : d->scopes->intervals()) {
      const Scope& sc = d->scopes->scope(iv.scope);
      if (sc.decl_line != line || !suffix_match(d->scopes->call_file_name(sc.decl_file), file)) {
        continue;
      }
      found[{function_name(sc, iv.low), sc.inlined}].push_back({iv.low, iv.high});
    }
  }
  return to_function_ranges(found);
}

}  // namespace cprof::symbolize
