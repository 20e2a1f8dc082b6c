#include "report/profile/source_lines.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "report/report.h"

namespace cprof::report {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& part : fs::path(path).lexically_normal()) {
    const std::string s = part.string();
    if (!s.empty() && s != "/") out.push_back(s);
  }
  return out;
}

// Whether `spec`'s components are the last ones of `path`'s.
bool names(const std::string& path, const std::vector<std::string>& spec) {
  if (spec.empty()) return false;
  const auto parts = components(path);
  if (parts.size() < spec.size()) return false;
  return std::equal(spec.rbegin(), spec.rend(), parts.rbegin());
}

bool readable(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), R_OK) == 0;
}

}  // namespace

std::vector<SourceFileMatch> match_source_files(const Report& report, const std::string& spec) {
  const auto wanted = components(spec);
  const bool absolute = !spec.empty() && spec[0] == '/';
  std::map<std::string, Measure> by_file;
  const auto& lines = report.symbols.table.lines;
  for (const auto& row : report.flat.lines) {
    const auto& info = lines[row.id];
    if (info.file.empty()) continue;
    const bool match = spec.empty() || (absolute ? fs::path(info.file).lexically_normal() ==
                                                       fs::path(spec).lexically_normal()
                                                 : names(info.file, wanted));
    if (!match) continue;
    auto& m = by_file[info.file];
    m.samples += row.self.samples;
    m.time_ns += row.self.time_ns;
  }
  std::vector<SourceFileMatch> out;
  for (const auto& [file, total] : by_file) out.push_back({file, total});
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.total.time_ns > b.total.time_ns; });
  return out;
}

std::map<uint32_t, SourceLineCounts> source_line_counts(const Report& report,
                                                        const std::string& file) {
  std::map<uint32_t, SourceLineCounts> out;
  const auto& lines = report.symbols.table.lines;
  for (const auto& row : report.flat.lines) {
    const auto& info = lines[row.id];
    if (info.file != file || info.line == 0) continue;
    auto& c = out[info.line];
    c.self.samples += row.self.samples;
    c.self.time_ns += row.self.time_ns;
    c.total.samples += row.total.samples;
    c.total.time_ns += row.total.time_ns;
  }
  return out;
}

std::string find_source_text(const std::string& file, const std::vector<std::string>& dirs,
                             std::vector<std::string>& tried) {
  tried.clear();
  tried.push_back(file);
  if (readable(file)) return file;
  const auto parts = components(file);
  for (const auto& dir : dirs) {
    if (const auto eq = dir.find('='); eq != std::string::npos) {
      const std::string from = dir.substr(0, eq);
      const std::string to = dir.substr(eq + 1);
      if (!from.empty() && file.starts_with(from)) {
        const std::string candidate = to + file.substr(from.size());
        tried.push_back(candidate);
        if (readable(candidate)) return candidate;
      }
      continue;
    }
    for (size_t skip = 0; skip < parts.size(); ++skip) {
      fs::path candidate = dir;
      for (size_t i = skip; i < parts.size(); ++i) candidate /= parts[i];
      tried.push_back(candidate.string());
      if (readable(candidate.string())) return candidate.string();
    }
  }
  return {};
}

}  // namespace cprof::report
