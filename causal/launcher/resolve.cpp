#include "causal/launcher/resolve.h"

#include <map>

namespace cprof::causal {
namespace {

std::vector<AddressRange> to_ranges(const std::vector<symbolize::AddressRange>& in) {
  std::vector<AddressRange> out;
  for (const auto& r : in) out.push_back(AddressRange{r.low, r.high});
  return out;
}

// Code the user did not write: the C++ library's inlined templates, the compiler's and
// libc's start-up code.
bool outside_source_scope(const std::string& name) {
  static const char* const kPrefixes[] = {"std::", "__gnu_cxx::", "__cxx", "_start", "__libc",
                                          "_init", "_fini", "frame_dummy", "register_tm_clones",
                                          "deregister_tm_clones", "__do_global", "operator new",
                                          "operator delete", "_GLOBAL__", "__static_initialization"};
  for (const char* p : kPrefixes) {
    if (name.rfind(p, 0) == 0) return true;
  }
  return false;
}

}  // namespace

LocationResolver::LocationResolver(std::string executable)
    : executable_(std::move(executable)), module_{executable_, ""} {}

std::string LocationResolver::check_debug_info() {
  // A lookup of a file no program has tells apart "no such file" from "no DWARF at all".
  auto r = symbolizer_.ranges_for_line(module_, "cprof-no-such-file.none", 1);
  if (!r.ok() && r.error().message.find("no DWARF line information") != std::string::npos) {
    return executable_ + " has no debug information: rebuild it with -g (e.g. -O2 -g)";
  }
  if (!r.ok() && r.error().message.find("no source file matches") == std::string::npos) {
    return r.error().message;
  }
  return {};
}

std::string LocationResolver::add_lines(const std::vector<std::string>& specs,
                                        std::vector<LocationLine>& out) {
  for (const auto& spec : specs) {
    auto parsed = symbolize::parse_source_line(spec);
    if (!parsed.ok()) return "--line " + spec + ": " + parsed.error().message;
    auto ranges = symbolizer_.ranges_for_line(module_, parsed->file, parsed->line);
    if (!ranges.ok()) return "--line " + spec + ": " + ranges.error().message;
    out.push_back(LocationLine{spec, to_ranges(*ranges)});
  }
  return {};
}

std::string LocationResolver::add_functions(const std::string& pattern,
                                            std::vector<LocationLine>& out) {
  auto found = symbolizer_.ranges_for_function(module_, pattern);
  if (!found.ok()) return "--function " + pattern + ": " + found.error().message;
  std::map<std::string, std::vector<AddressRange>> by_name;
  for (const auto& f : *found) {
    auto& ranges = by_name[f.function];
    for (const auto& r : f.ranges) ranges.push_back(AddressRange{r.low, r.high});
  }
  for (auto& [name, ranges] : by_name) out.push_back(LocationLine{name, std::move(ranges)});
  return {};
}

std::string LocationResolver::add_all_functions(std::vector<LocationLine>& out) {
  std::vector<LocationLine> all;
  if (std::string err = add_functions(".", all); !err.empty()) return err;
  for (auto& l : all) {
    if (!outside_source_scope(l.name)) out.push_back(std::move(l));
  }
  if (out.empty()) return executable_ + ": no function of its own to experiment on";
  return {};
}

std::string LocationResolver::breakpoint_address(const std::string& spec, uint64_t& address) {
  auto parsed = symbolize::parse_source_line(spec);
  if (!parsed.ok()) return "--progress " + spec + ": " + parsed.error().message;
  auto ranges = symbolizer_.ranges_for_line(module_, parsed->file, parsed->line);
  if (!ranges.ok()) return "--progress " + spec + ": " + ranges.error().message;
  address = ranges->front().low;
  return {};
}

}  // namespace cprof::causal
