#pragma once
// Which code causal-run may select: --binary-scope (which binaries) and --source-scope
// (which source files). Patterns are globs (fnmatch: * ? [..]) in which Coz's wildcard
// '%' also stands for any text; a list may be comma-separated and options repeated.
//   binary scope: "MAIN" is the program's executable; any other pattern matches a
//     library's full path or its file name. A pattern with a '/' also names files on
//     disk (glob(3)): a library among them that the program does not load at start is
//     one it may load later, with dlopen. Default: MAIN.
//   source scope: patterns match a source file's full path. Default (no pattern): the
//     program's own sources, i.e. every file that is not a system header or the C/C++
//     library's code (docs/causal.md lists the prefixes).

#include <string>
#include <string_view>
#include <vector>

#include "common/system_paths.h"

namespace cprof::causal {

// "a,b" and repeated options -> {"a", "b"}; empty items dropped.
std::vector<std::string> split_scope_list(const std::vector<std::string>& values);

// The patterns with a '/' that do not start with one, made absolute against the working
// directory ("./plugins/%.so" -> "/home/u/app/plugins/%.so"); the others as they are.
std::vector<std::string> absolute_path_patterns(std::vector<std::string> patterns);

// The canonical absolute path of an existing file (links and dots resolved); "" when
// there is none.
std::string real_path(const std::string& path);

// fnmatch with '%' read as '*'.
bool scope_pattern_matches(const std::string& pattern, const std::string& text);

class BinaryScope {
 public:
  explicit BinaryScope(std::vector<std::string> patterns);  // empty: {"MAIN"}
  bool includes_main() const;
  bool includes_library(const std::string& path) const;
  const std::vector<std::string>& patterns() const { return patterns_; }
  // The regular files the patterns with a '/' name on disk now, as real paths.
  const std::vector<std::string>& named_files() const { return files_; }
  // The patterns with a '/' that name no file (a mistyped path, or a pattern meant for
  // the full paths of the libraries loaded at start).
  const std::vector<std::string>& paths_without_files() const { return without_files_; }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::string> files_;
  std::vector<std::string> without_files_;
};

class SourceScope {
 public:
  explicit SourceScope(std::vector<std::string> patterns);  // empty: the program's own
  bool includes(const std::string& file) const;
  bool is_default() const { return patterns_.empty(); }

 private:
  std::vector<std::string> patterns_;
};

// A system header or library source: common/system_paths.h.
using cprof::is_system_source;

}  // namespace cprof::causal
