#pragma once
// The output formats (docs/report.md): each is one function below from a built Report to
// the format's bytes (write_sqlite: to a database file). The rest of render/ serves them.
// Files are named format first, so a format's files sort together:
//   <format>.cpp            the function below: the document and its sampled profile; it
//                           calls the format's sections
//   <format>_<section>.cpp  one section of that format: views (call tree; per thread,
//                           process and rank; counters), causal (experiments, predictions,
//                           timed regions), gpu. Declared in <format>_<section>.h; the gpu
//                           sections together in gpu_render.h, coz's in coz_writer.h
//   <format>_<helper>       how that format is written, for its files and others':
//                           text_util, text_rows, json_writer (json, chrome, speedscope),
//                           html_escape, sqlite_db.h, coz_writer.h
// What several formats say alike is named for what it is: gpu_labels (names and notes of
// the gpu sections), coverage_warning and unnamed_code_note (text and html header notes).

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "report/report.h"

namespace cprof::report {

// The rows of the text table: the flat profile by function or line, the time per
// thread, process, rank or module, or where threads waited (wall clock).
enum class RowKind { function, line, thread, process, rank, module, wait };
enum class View { flat, tree };

struct RenderOptions {
  size_t top = 20;  // rows per table; 0 = all
  RowKind by = RowKind::function;
  View view = View::flat;  // text: the flat table or the call tree (needs Report::tree)
  size_t width = 100;      // text: the widest line
  // text: instead of the tables, this source file annotated (a file the line rows name:
  // match_source_files), its text read through source_dirs where the path is not there.
  std::string source_file;
  std::vector<std::string> source_dirs;

  // Rows a table of `available` rows shows.
  size_t rows(size_t available) const { return top == 0 ? available : std::min(top, available); }
};

std::string render_text(const Report& report, const RenderOptions& options);
// causal-report --diff BASE DIR: what changed from `base` to `now`, by function or line;
// the names say which is which.
std::string render_text_diff(const Report& base, const Report& now, const std::string& base_name,
                             const std::string& now_name, const RenderOptions& options);
// The same in HTML, with a differential flame graph (needs both reports' trees).
std::string render_html_diff(const Report& base, const Report& now, const std::string& base_name,
                             const std::string& now_name, const RenderOptions& options);
std::string render_json(const Report& report, const RenderOptions& options);

// Formats for other tools (docs/report.md). Those marked (tree) need Report::tree.
std::string render_html(const Report& report, const RenderOptions& options);  // (tree)
std::string render_folded(const Report& report);                               // (tree)
std::string render_speedscope(const Report& report);
// The Firefox Profiler's processed profile (firefox.cpp); needs the timeline for times.
std::string render_firefox(const Report& report);
std::string render_pprof(const Report& report);   // gzipped profile.proto bytes
// Needs LoadOptions::keep_timeline. When drawing every sample would take more than about
// max_events trace events, a slice stands for several consecutive samples of a thread
// (their most frequent stack).
std::string render_chrome(const Report& report, uint64_t max_events = 3'000'000);
// Coz's profile: tab-separated (profile.coz) or JSON lines (profile.jsonl).
enum class CozStyle;
std::string render_coz(const Report& report, CozStyle style);
// Writes a SQLite database at `path` (replacing it). Returns "" or what went wrong.
std::string write_sqlite(const Report& report, const std::string& path);

}  // namespace cprof::report
