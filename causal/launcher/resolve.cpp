#include "causal/launcher/resolve.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "causal/launcher/no_debug_info.h"
#include "causal/launcher/source_names.h"
#include "causal/location.h"

namespace cprof::causal {
namespace {

std::vector<AddressRange> to_ranges(const std::vector<symbolize::AddressRange>& in) {
  std::vector<AddressRange> out;
  out.reserve(in.size());
  for (const auto& r : in) out.push_back(AddressRange{r.low, r.high});
  return out;
}

// Functions the user did not write even when their code sits in the program's own
// files: the C++ library's inlined templates, the compiler's and libc's start-up code.
bool library_function_name(const std::string& name) {
  static const char* const kPrefixes[] = {"std::", "__gnu_cxx::", "__cxx", "_start", "__libc",
                                          "_init", "_fini", "frame_dummy", "register_tm_clones",
                                          "deregister_tm_clones", "__do_global", "operator new",
                                          "operator delete", "_GLOBAL__", "__static_initialization"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](const char* p) { return name.rfind(p, 0) == 0; });
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::vector<std::string> selection_arguments(const Selection& s) {
  std::vector<std::string> args;
  for (const auto& l : s.lines) args.insert(args.end(), {"--line", l});
  if (!s.function.empty()) args.insert(args.end(), {"--function", s.function});
  // Only what means something with the rest (causal-run refuses options without effect).
  if (s.automatic()) args.insert(args.end(), {"--mode", s.mode});
  for (const auto& b : s.binary_scope) args.insert(args.end(), {"--binary-scope", b});
  if (s.lines.empty() || !s.function.empty()) {
    for (const auto& f : s.source_scope) args.insert(args.end(), {"--source-scope", f});
  }
  return args;
}

std::vector<std::string> startup_libraries(const std::string& executable) {
  std::vector<std::string> out;
  const std::string command = "ldd " + shell_quote(executable) + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
    // "\tlibfoo.so.1 => /usr/lib/libfoo.so.1 (0x...)"
    const std::string line(buf);
    const size_t arrow = line.find("=> /");
    if (arrow == std::string::npos) continue;
    const size_t start = arrow + 3;
    const size_t end = line.find(" (", start);
    out.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
  }
  pclose(pipe);
  return out;
}

LocationResolver::LocationResolver(std::string executable, const Selection& selection)
    : executable_(std::move(executable)),
      selection_(selection),
      binary_scope_(split_scope_list(selection.binary_scope)),
      source_scope_(split_scope_list(selection.source_scope)) {
  if (binary_scope_.includes_main()) binaries_.push_back(Binary{executable_, ""});
  const bool any_library =
      std::any_of(binary_scope_.patterns().begin(), binary_scope_.patterns().end(),
                  [](const std::string& p) { return p != "MAIN"; });
  if (any_library) {
    for (const auto& lib : libraries()) {
      if (binary_scope_.includes_library(lib)) binaries_.push_back(Binary{lib, lib});
    }
  }
  // Library files named by path that the program does not load at start: it may load them
  // later (dlopen). Resolved now; the runtime attaches them where the loader puts them.
  std::set<std::string> known;
  const auto real_or_given = [](const std::string& path) {
    std::string real = real_path(path);
    return real.empty() ? path : real;
  };
  for (const auto& b : binaries_) known.insert(real_or_given(b.path));
  for (const auto& lib : libraries()) known.insert(real_or_given(lib));
  for (const auto& file : binary_scope_.named_files()) {
    if (known.insert(file).second) {
      binaries_.push_back(Binary{file, file});
      later_.push_back(file);
    }
  }
}

bool LocationResolver::has_debug_info(const std::string& path, std::string& error) {
  // A lookup of a file no program has tells apart "no such file" from "no DWARF at all".
  auto r = symbolizer_.ranges_for_line({path, ""}, "cprof-no-such-file.none", 1);
  if (!r.ok() && r.error().message.find("no DWARF line information") != std::string::npos) {
    error = no_debug_info_error(path);
    return false;
  }
  if (!r.ok() && r.error().message.find("no source file matches") == std::string::npos) {
    error = r.error().message;
    return false;
  }
  return true;
}

std::string LocationResolver::check_debug_info(std::vector<std::string>& notes) {
  // Only what the selection may use: the binaries in scope (--progress FILE:LINE checks
  // the executable itself). An executable without debug information is fine when the
  // scope leaves it out: a distro program profiled in a library that has them.
  std::vector<Binary> kept;
  std::vector<std::string> left_out;
  for (const auto& b : binaries_) {
    std::string error;
    if (has_debug_info(b.path, error)) {
      kept.push_back(b);
    } else {
      left_out.push_back(std::move(error));
    }
  }
  if (kept.empty() && !left_out.empty()) return left_out.front();
  for (const auto& why : left_out) notes.push_back(why + "; left out");
  binaries_ = std::move(kept);
  return {};
}

std::string LocationResolver::resolve(std::vector<LocationLine>& out,
                                      std::vector<std::string>& notes) {
  // A path that names no file and no library of the start: a typo would otherwise leave
  // the library out without a word (MAIN still matching).
  for (const auto& pattern : binary_scope_.paths_without_files()) {
    const bool at_start =
        std::any_of(libraries().begin(), libraries().end(),
                    [&](const std::string& lib) { return scope_pattern_matches(pattern, lib); });
    if (!at_start) {
      return "--binary-scope " + pattern + ": no such file, and no library " + executable_ +
             " loads at start matches it (a pattern with a '/' names library files, e.g. "
             "./plugins/libfoo.so or './plugins/%.so' for those it loads later with dlopen)";
    }
  }
  if (binaries_.empty()) {
    return "--binary-scope: no binary of " + executable_ + " matches (MAIN is the executable; " +
           "other patterns match the libraries it loads at start, or name by path a library " +
           "file it loads later)";
  }
  for (const auto& file : later_) {
    if (std::none_of(binaries_.begin(), binaries_.end(),
                     [&](const Binary& b) { return b.path == file; })) {
      continue;  // left out by check_debug_info
    }
    notes.push_back(file + " is not loaded when the program starts: its code is taken as a " +
                    "library the program loads later (dlopen), counted and experimented on " +
                    "from then on");
  }
  if (!selection_.lines.empty()) {
    if (std::string err = add_lines(out, notes); !err.empty()) return err;
  }
  if (!selection_.function.empty()) {
    const size_t before = out.size();
    std::string first_error;
    for (const auto& b : binaries_) {
      std::string err = add_functions(selection_.function, b, false, out);
      if (!err.empty() && first_error.empty()) first_error = err;
    }
    if (out.size() == before) return "--function " + selection_.function + ": " + first_error;
  }
  if (!selection_.automatic()) return {};

  for (const auto& b : binaries_) {
    const size_t before = out.size();
    std::string err = selection_.mode == "function" ? add_functions(".", b, true, out)
                                                    : add_all_lines(b, out);
    if (!err.empty() && !b.module.empty()) notes.push_back(b.path + ": " + err + "; left out");
    if (!err.empty() && b.module.empty()) return err;
    if (out.size() == before && !b.module.empty()) {
      notes.push_back(b.path + ": no code in the source scope; left out");
    }
  }
  if (out.empty()) {
    return executable_ + ": no code of its own to experiment on (see --binary-scope and " +
           "--source-scope)";
  }
  return {};
}

// A line without code where a function is defined: the line the report's function table
// names it by (zstd's ZSTD_insertDUBT1 at zstd_lazy.c:65, its signature). The user who
// copies it means the function: its code, out-of-line and inlined, said in a note.
bool LocationResolver::add_function_defined_at(const std::string& spec, const std::string& file,
                                               uint32_t line, std::vector<LocationLine>& out,
                                               std::vector<std::string>& notes) {
  for (const auto& b : binaries_) {
    const auto defined = symbolizer_.functions_defined_at({b.path, ""}, file, line);
    if (defined.empty()) continue;
    std::vector<symbolize::AddressRange> all;
    std::set<std::string> names;
    for (const auto& f : defined) {
      all.insert(all.end(), f.ranges.begin(), f.ranges.end());
      names.insert(f.function);
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    notes.push_back("--line " + spec + " has no code of its own: it is where " + list +
                    (names.size() == 1 ? " is" : " are") +
                    " defined (the line the report's function table shows); experimenting "
                    "on the whole function, as --function does");
    out.push_back(LocationLine{spec, to_ranges(all), b.module});
    return true;
  }
  return false;
}

std::string LocationResolver::add_lines(std::vector<LocationLine>& out,
                                        std::vector<std::string>& notes) {
  for (const auto& spec : selection_.lines) {
    // "FILE:FIRST-LAST": a block of lines as one location (a change that touches several
    // lines at once is predicted by speeding them up together).
    auto block = parse_line_span(spec);
    if (block && (block->first == 0 || block->last == 0 ||
                  spec.find('-', spec.rfind(':')) == std::string::npos)) {
      block.reset();
    }
    if (block && (block->last < block->first || block->last - block->first >= kMaxBlockLines)) {
      return "--line " + spec +
             ": a block of lines is FILE:FIRST-LAST with FIRST <= LAST, at most " +
             std::to_string(kMaxBlockLines) + " lines";
    }
    std::optional<symbolize::SourceLine> one;
    if (!block) {
      auto parsed = symbolize::parse_source_line(spec);
      if (!parsed.ok()) {
        return "--line " + spec + ": " + parsed.error().message + " or FILE:FIRST-LAST";
      }
      one = *parsed;
    }
    const std::string file = block ? std::string(block->file) : one->file;
    const uint32_t first = block ? block->first : one->line;
    const uint32_t last = block ? block->last : one->line;
    // The first binary in scope that has the line(s) (the executable first).
    std::string first_error;
    bool found = false;
    for (const auto& b : binaries_) {
      std::vector<symbolize::AddressRange> all;
      for (uint32_t line = first; line <= last; ++line) {
        auto ranges = symbolizer_.ranges_for_line({b.path, ""}, file, line);
        if (ranges.ok()) {
          all.insert(all.end(), ranges->begin(), ranges->end());
          continue;
        }
        // prefer "has no code" over "no such file"; a block may hold lines without code
        if (first_error.empty() ||
            first_error.find("no source file matches") != std::string::npos) {
          first_error = ranges.error().message;
        }
        if (ranges.error().message.find("has no code") == std::string::npos) break;
      }
      if (!all.empty()) {
        // Overlaps (code inlined from one line into another) are merged where every
        // location's ranges are, by the runtime (Location::normalize).
        out.push_back(LocationLine{spec, to_ranges(all), b.module});
        found = true;
        break;
      }
    }
    if (!found && !block && first_error.find("has no code") != std::string::npos) {
      found = add_function_defined_at(spec, file, first, out, notes);
    }
    if (!found && block && first_error.find("has no code") != std::string::npos) {
      first_error = file + ":" + std::to_string(first) + "-" + std::to_string(last) +
                    ": no line of it has code";
    }
    if (!found) return "--line " + spec + ": " + first_error;
  }
  return {};
}

std::string LocationResolver::add_functions(const std::string& pattern, const Binary& binary,
                                            bool in_scope_only, std::vector<LocationLine>& out) {
  auto found = symbolizer_.ranges_for_function({binary.path, ""}, pattern);
  if (!found.ok()) return found.error().message;
  // A function is in the source scope when some of its code comes from a file in scope.
  std::vector<symbolize::AddressRange> scoped;
  if (in_scope_only && !source_scope_.is_default()) {
    auto lines = symbolizer_.all_lines({binary.path, ""});
    if (!lines.ok()) return lines.error().message;
    for (const auto& l : *lines) {
      if (source_scope_.includes(l.file)) scoped.insert(scoped.end(), l.ranges.begin(), l.ranges.end());
    }
    std::sort(scoped.begin(), scoped.end(), [](const auto& a, const auto& b) { return a.low < b.low; });
  }
  auto overlaps_scope = [&](const symbolize::AddressRange& r) {
    auto it = std::upper_bound(scoped.begin(), scoped.end(), r.low,
                               [](uint64_t v, const auto& s) { return v < s.low; });
    if (it != scoped.begin() && std::prev(it)->high > r.low) return true;
    return it != scoped.end() && it->low < r.high;
  };
  std::map<std::string, std::vector<AddressRange>> by_name;
  std::set<std::string> in_scope;
  for (const auto& f : *found) {
    if (in_scope_only && library_function_name(f.function)) continue;
    auto& ranges = by_name[f.function];
    for (const auto& r : f.ranges) {
      ranges.push_back(AddressRange{r.low, r.high});
      if (scoped.empty() || overlaps_scope(r)) in_scope.insert(f.function);
    }
  }
  const bool filter = in_scope_only && !source_scope_.is_default();
  for (auto& [name, ranges] : by_name) {
    if (filter && in_scope.count(name) == 0) continue;
    out.push_back(LocationLine{name, std::move(ranges), binary.module});
  }
  return {};
}

std::string LocationResolver::add_all_lines(const Binary& binary, std::vector<LocationLine>& out) {
  auto lines = symbolizer_.all_lines({binary.path, ""});
  if (!lines.ok()) return lines.error().message;
  std::set<std::string> files;
  for (const auto& l : *lines) {
    if (source_scope_.includes(l.file)) files.insert(l.file);
  }
  // "file.cpp:42", the file named by its shortest trailing part no other file in scope has.
  const auto names = shortest_unique_names(files);
  for (const auto& l : *lines) {
    auto name = names.find(l.file);
    if (name == names.end()) continue;
    out.push_back(LocationLine{name->second + ":" + std::to_string(l.line), to_ranges(l.ranges),
                               binary.module});
  }
  return {};
}

namespace {

// Which copy of FILE:LINE the code at an address belongs to: the chain of functions and
// call sites from the frame of the line itself outwards. Rows of one copy split by other
// lines' code share it; an inlined copy differs from the others in its call site.
std::string copy_of(const symbolize::Symbol& symbol, uint32_t line) {
  const auto& frames = symbol.frames;
  size_t own = 0;  // the frame at the line (a line whose code is all inlined: further out)
  while (own < frames.size() && frames[own].line != line) ++own;
  if (own == frames.size()) own = 0;
  std::string key;
  for (size_t i = own; i < frames.size(); ++i) {
    key += frames[i].function;
    if (i > own) key += "@" + frames[i].file + ":" + std::to_string(frames[i].line);
    key += '\n';
  }
  return key;
}

}  // namespace

const std::vector<std::string>& LocationResolver::libraries() {
  if (!libraries_) libraries_ = startup_libraries(executable_);  // ldd: once
  return *libraries_;
}

std::string LocationResolver::breakpoint_addresses(const std::string& spec,
                                                   std::vector<uint64_t>& addresses,
                                                   std::string& library) {
  auto parsed = symbolize::parse_source_line(spec);
  if (!parsed.ok()) return "--progress " + spec + ": " + parsed.error().message;
  // The line's own first instruction: the lowest address of code inlined into it could be
  // inside a loop of the callee, visited more often than the line. A line whose only code
  // is inlined (a call site with no row of its own) counts at that code's entry.
  const auto line_code = [&](const symbolize::ModuleRef& module) {
    auto ranges = symbolizer_.ranges_for_line(module, parsed->file, parsed->line,
                                              symbolize::LineCode::own_rows);
    if (!ranges.ok()) ranges = symbolizer_.ranges_for_line(module, parsed->file, parsed->line);
    return ranges;
  };
  symbolize::ModuleRef module{executable_, ""};
  library.clear();
  auto ranges = line_code(module);
  // Not the executable's: a library it loads at start (a program whose work is in its own
  // shared library, as Debian builds x264 and SQLite's shell).
  const auto no_such_file = [](const auto& r) {
    return !r.ok() && r.error().message.find("no source file matches") != std::string::npos;
  };
  // The first library whose file has code at the line: another library may have a file
  // of the same name (glibc's misc/regexp.c beside SQLite's ext/misc/regexp.c), so one
  // where the line has no code is passed over, and its error kept for the case no
  // library has the line.
  if (no_such_file(ranges)) {
    std::vector<std::string> candidates = libraries();
    candidates.insert(candidates.end(), later_.begin(), later_.end());
    std::optional<decltype(ranges)> first_miss;
    for (const auto& lib : candidates) {
      auto in_library = line_code({lib, ""});
      if (no_such_file(in_library)) continue;
      if (!in_library.ok()) {
        if (!first_miss) first_miss = std::move(in_library);
        continue;
      }
      ranges = std::move(in_library);
      module = {lib, ""};
      library = lib;
      break;
    }
    if (!ranges.ok() && first_miss) ranges = std::move(*first_miss);
  }
  if (!ranges.ok()) return "--progress " + spec + ": " + ranges.error().message;
  std::vector<uint64_t> lows;
  for (const auto& r : *ranges) lows.push_back(r.low);
  const auto symbols = symbolizer_.symbolize(module, lows);
  std::map<std::string, uint64_t> first_of_copy;
  for (size_t i = 0; i < lows.size(); ++i) {
    auto [it, added] = first_of_copy.emplace(copy_of(symbols[i], parsed->line), lows[i]);
    if (!added) it->second = std::min(it->second, lows[i]);
  }
  addresses.clear();
  for (const auto& [copy, address] : first_of_copy) addresses.push_back(address);
  std::sort(addresses.begin(), addresses.end());
  return {};
}

}  // namespace cprof::causal
