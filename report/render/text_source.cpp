#include "report/render/text_source.h"

#include <fmt/format.h>

#include <fstream>
#include <vector>

#include "report/profile/source_lines.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

// Lines shown around each sampled line, as `pprof -list` and `perf annotate` show some.
constexpr uint32_t kContext = 3;

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    for (char& c : line) {
      if (c == '\t') c = ' ';  // a tab would break the columns; tabs become one space
    }
    out.push_back(std::move(line));
  }
  return out;
}

std::string counts_cells(const Report& r, const SourceLineCounts& c) {
  return fmt::format("{} {} {:>9} {:>8}", percent_cell(r.flat.fraction(c.self)),
                     percent_cell(r.flat.fraction(c.total)), human_duration(c.self.time_ns),
                     with_commas(c.self.samples));
}

}  // namespace

void text_source(std::string& out, const Report& r, const RenderOptions& o) {
  const auto counts = source_line_counts(r, o.source_file);
  Measure self;
  for (const auto& [line, c] : counts) {
    self.samples += c.self.samples;
    self.time_ns += c.self.time_ns;
  }
  std::vector<std::string> tried;
  const std::string path = find_source_text(o.source_file, o.source_dirs, tried);
  add_wrapped(out, o.width,
              fmt::format("Source: {}{}: {} of the time in its lines ({}), {}", o.source_file,
                          path.empty() || path == o.source_file ? "" : " (read from " + path + ")",
                          percent_cell(r.flat.fraction(self)), human_duration(self.time_ns),
                          plural(counts.size(), "line with samples", "lines with samples")));
  add_line(out, o.width,
           fmt::format("{:>7} {:>7} {:>9} {:>8} {:>6}  {}", "self%", "total%", "self", "samples",
                       "line", "source"));
  if (path.empty()) {
    for (const auto& [line, c] : counts) {
      add_line(out, o.width, fmt::format("{} {:>6}", counts_cells(r, c), line));
    }
    std::string where;
    for (const auto& t : tried) where += (where.empty() ? "" : ", ") + t;
    add_wrapped(out, o.width,
                fmt::format("(the source text was not found: looked at {}; give its folder "
                            "with --source-dir DIR, or --source-dir OLD=NEW for a build made "
                            "in another tree)",
                            where));
    return;
  }
  const auto text = read_lines(path);
  // Which lines to show: every sampled line and kContext lines each side.
  std::vector<bool> shown(text.size() + 1, false);
  for (const auto& [line, c] : counts) {
    const uint32_t from = line > kContext ? line - kContext : 1;
    for (uint32_t l = from; l <= line + kContext && l <= text.size(); ++l) shown[l] = true;
  }
  const std::string blank(counts_cells(r, SourceLineCounts{}).size(), ' ');
  bool gap = false;
  for (uint32_t l = 1; l <= text.size(); ++l) {
    if (!shown[l]) {
      gap = true;
      continue;
    }
    if (gap) add_line(out, o.width, fmt::format("{} {:>6}", blank, "..."));
    gap = false;
    const auto it = counts.find(l);
    // Source lines are not cut to the width: the code is what the reader came for.
    out += fmt::format("{} {:>6}  {}", it == counts.end() ? blank : counts_cells(r, it->second), l,
                       text[l - 1]);
    out += '\n';
  }
  // Lines the debug information names past the file's end: the file changed since the build.
  for (auto it = counts.upper_bound(static_cast<uint32_t>(text.size())); it != counts.end(); ++it) {
    add_line(out, o.width,
             fmt::format("{} {:>6}  (past the end of {}: it changed since the build)",
                         counts_cells(r, it->second), it->first, path));
  }
}

}  // namespace cprof::report
