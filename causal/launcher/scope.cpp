#include "causal/launcher/scope.h"

#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace cprof::causal {

std::vector<std::string> split_scope_list(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    size_t start = 0;
    while (start <= v.size()) {
      const size_t comma = v.find(',', start);
      const size_t end = comma == std::string::npos ? v.size() : comma;
      if (end > start) out.push_back(v.substr(start, end - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

std::vector<std::string> absolute_path_patterns(std::vector<std::string> patterns) {
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return patterns;
  for (auto& p : patterns) {
    if (p.find('/') == std::string::npos || p[0] == '/') continue;
    p = std::string(cwd) + "/" + (p.rfind("./", 0) == 0 ? p.substr(2) : p);
  }
  return patterns;
}

bool scope_pattern_matches(const std::string& pattern, const std::string& text) {
  std::string glob = pattern;
  std::replace(glob.begin(), glob.end(), '%', '*');
  return fnmatch(glob.c_str(), text.c_str(), 0) == 0;
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) == nullptr ? std::string() : std::string(buf);
}

BinaryScope::BinaryScope(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {
  if (patterns_.empty()) patterns_.push_back("MAIN");
  for (const auto& p : patterns_) {
    if (p.find('/') == std::string::npos) continue;
    std::string pattern = p;
    std::replace(pattern.begin(), pattern.end(), '%', '*');
    glob_t found{};
    bool any = false;
    if (glob(pattern.c_str(), 0, nullptr, &found) == 0) {
      for (size_t i = 0; i < found.gl_pathc; ++i) {
        struct stat st {};
        const std::string file = real_path(found.gl_pathv[i]);
        if (file.empty() || stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        any = true;
        if (std::find(files_.begin(), files_.end(), file) == files_.end()) files_.push_back(file);
      }
    }
    globfree(&found);
    if (!any) without_files_.push_back(p);
  }
}

bool BinaryScope::includes_main() const {
  return std::find(patterns_.begin(), patterns_.end(), "MAIN") != patterns_.end();
}

bool BinaryScope::includes_library(const std::string& path) const {
  const size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (std::any_of(patterns_.begin(), patterns_.end(), [&](const std::string& p) {
        return p != "MAIN" && (scope_pattern_matches(p, path) || scope_pattern_matches(p, name));
      })) {
    return true;
  }
  // A path pattern written relative, or through a link: the files it names.
  if (files_.empty()) return false;
  const std::string real = real_path(path);
  return std::find(files_.begin(), files_.end(), real) != files_.end();
}

SourceScope::SourceScope(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {}

bool SourceScope::includes(const std::string& file) const {
  if (patterns_.empty()) return !is_system_source(file);
  return std::any_of(patterns_.begin(), patterns_.end(),
                     [&](const std::string& p) { return scope_pattern_matches(p, file); });
}

}  // namespace cprof::causal
