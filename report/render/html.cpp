// `--format html`: one self-contained page (no external file: it opens offline and from
// an e-mail attachment): what ran, the profile tables, the per-thread and per-process
// (and per-rank, with several ranks) breakdowns, the counters, and the call tree as an
// inline SVG icicle (outermost frames on top; hover a box for its numbers), which an
// inline script replaces with the interactive flame graph (html_flame.h); without
// script (a mail client) the static icicle stays. Every name is escaped.
#include <fmt/format.h>

#include <algorithm>

#include "report/render/coverage_warning.h"
#include "report/render/cpu_account_note.h"
#include "report/render/cut_short_note.h"
#include "report/render/gpu_render.h"
#include "report/render/html_causal.h"
#include "report/render/html_escape.h"
#include "report/render/html_flame.h"
#include "report/render/rank_spread_note.h"
#include "report/render/render.h"
#include "report/render/text_util.h"
#include "report/render/text_views.h"
#include "report/render/unnamed_code_note.h"

namespace cprof::report {
namespace {

constexpr size_t kMaxRows = 500;  // per table when --top is 0
constexpr double kSvgWidth = 1200;
constexpr double kRowHeight = 17;
constexpr double kMinBoxWidth = 0.8;  // narrower boxes (and their subtrees) are left out
constexpr double kCharWidth = 6.6;    // 11px monospace, for cutting labels to fit

std::string esc(std::string_view s) { return html_escape(s); }

std::string pct(double f) { return fmt::format("{:.2f}%", 100 * f); }

size_t rows_shown(size_t rows, size_t top) { return std::min(rows, top == 0 ? kMaxRows : top); }

// The row a table ends with when it was cut: how many rows it left out and their share.
void more_rows(std::string& out, size_t columns, uint64_t n, const char* word, const char* words,
               double fraction) {
  out += fmt::format("<tr class=\"more\"><td class=\"name\" colspan=\"{}\">{}</td></tr>\n", columns,
                     esc(more_rows_line("…", n, word, words, fraction)));
}

void processes(std::string& out, const Report& r, const RenderOptions& o) {
  // By time, most first: the samples' time, or for a process without a sample its CPU
  // time (profile/cpu_accounting.h), so that the process that did the work is on top
  // and a run of thousands of short ones is cut, with what they add up to.
  std::vector<std::pair<uint64_t, size_t>> order;  // (time, process)
  for (const auto& row : r.breakdown.processes) {
    const auto& c = r.cpu.processes[row.process];
    order.emplace_back(
        row.time.samples > 0 || c.sampled_ns > 0 ? row.time.time_ns : c.unsampled_ns(),
        row.process);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  const size_t n = rows_shown(order.size(), o.top);
  out += fmt::format("<h2>Processes</h2><p class=\"note\">top {} of {} by time</p>\n", n,
                     with_commas(order.size()));
  html_table_head(out,
                  {"share", "time", "CPU time", "<process", "<host", "<run", "engine", "ran",
                   "threads", "samples", "dropped", "peak RSS", "CPUs busy", "faults (minor/major)",
                   "context switches (vol/invol)"},
                  "processes");
  for (size_t k = 0; k < n; ++k) {
    const size_t i = order[k].second;
    const auto& p = r.processes[i];
    const auto& m = r.breakdown.metrics[i];
    const auto& c = r.cpu.processes[i];
    const bool unsampled = c.accounted && c.sampled_ns == 0 && p.samples == 0;
    out += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td class=\"name\">{}</td><td "
        "class=\"name\">{}</td><td "
        "class=\"name\">{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></"
        "tr>\n",
        unsampled ? " class=\"unsampled\"" : "", pct(r.share_ns(order[k].first)),
        unsampled ? "-" : human_duration(order[k].first),
        c.accounted ? human_duration(c.recorded_ns) + (unsampled ? ", unsampled" : "") : "-",
        esc(p.label()), esc(p.process.hostname), esc(p.run),
        esc(p.process.engine + " " + p.process.clock +
            (p.other_clock_samples > 0 || p.clock == format::SampleClock::wall
                 ? std::string("; profile: ") +
                       (p.clock == format::SampleClock::wall ? "wall" : "CPU") + " clock"
                 : std::string())),
        human_duration(p.duration_ns()) + (p.cut ? " (cut short)" : ""), p.threads.size(),
        with_commas(p.samples), with_commas(p.dropped_samples()),
        m.records ? fmt::format("{:.1f} MB", static_cast<double>(m.peak_rss_bytes) / 1e6) : "-",
        m.cpu_utilization >= 0 ? fmt::format("{:.2f}", m.cpu_utilization) : "-",
        m.records ? fmt::format("{}/{}", with_commas(m.minor_faults), with_commas(m.major_faults))
                  : "-",
        m.records ? fmt::format("{}/{}", with_commas(m.voluntary_switches),
                                with_commas(m.involuntary_switches))
                  : "-");
  }
  if (n < order.size()) {
    uint64_t ns = 0;
    for (size_t k = n; k < order.size(); ++k) ns += order[k].first;
    more_rows(out, 15, order.size() - n, "process", "processes", r.share_ns(ns));
  }
  out += "</tbody></table>\n";
  std::string notes;
  for (const auto& p : r.processes) {
    if (const auto w = cut_short_note(p); !w.empty()) notes += "<li>" + esc(w) + "</li>\n";
  }
  for (size_t i = 0; i < r.processes.size() && i < r.coverage.size(); ++i) {
    if (const auto w = coverage_warning(r.processes[i], r.coverage[i]); !w.empty()) {
      notes += "<li class=\"unsampled\">" + esc(w) + "</li>\n";
    }
  }
  for (size_t i = 0; i < r.processes.size() && i < r.unnamed_code.size(); ++i) {
    if (const auto note = unnamed_code_note(r.processes[i], r.unnamed_code[i]); !note.empty()) {
      notes += "<li>" + esc(note) + "</li>\n";
    }
  }
  for (const auto& m : r.unnamed_modules) notes += "<li>" + esc(unnamed_module_note(m)) + "</li>\n";
  for (const auto& e : r.counters.events) {
    if (e.processes_unavailable) {
      notes += fmt::format("<li>unavailable event: <code>{}</code> ({}) in {} of {}</li>\n",
                           esc(e.name), esc(e.detail), e.processes_unavailable,
                           plural(r.processes.size(), "process", "processes"));
    }
    if (e.processes_noted) {
      notes += fmt::format("<li>event <code>{}</code> counted {} in {} of {}</li>\n", esc(e.name),
                           esc(e.note), e.processes_noted,
                           plural(r.processes.size(), "process", "processes"));
    }
  }
  for (const auto& w : r.warnings) notes += "<li>warning: " + esc(w) + "</li>\n";
  if (!notes.empty()) out += "<ul class=\"note\">\n" + notes + "</ul>\n";
}

// A table cell for a function name or location: long C++ names (template arguments,
// parameter lists) are shortened for the table; the whole name stays in the tooltip.
std::string name_cell(const std::string& name) {
  constexpr size_t kLongest = 100;
  if (name.size() <= kLongest) return "<td class=\"name\">" + esc(name) + "</td>";
  return "<td class=\"name\" title=\"" + esc(name) + "\">" +
         esc(compact_function_name(name, kLongest)) + "</td>";
}

void flat_table(std::string& out, const Report& r, const RenderOptions& o, bool by_line) {
  const auto& table = r.symbols.table;
  const auto& rows = by_line ? r.flat.lines : r.flat.functions;
  const size_t n = rows_shown(rows.size(), o.top);
  out += fmt::format(
      "<h2>{} by self time</h2><p class=\"note\">top {} of {}; per thread: mean / max over "
      "{}</p>\n",
      by_line ? "Lines" : "Functions", n, with_commas(rows.size()),
      plural(r.flat.threads, "thread"));
  html_table_head(out,
                  {"self %", "total %", "self", "total", "samples", "mean/thread", "max/thread",
                   by_line ? "<location" : "<function", by_line ? "<function" : "<location"},
                  by_line ? "lines" : "functions");
  for (size_t i = 0; i < n; ++i) {
    const auto& row = rows[i];
    std::string name, where;
    if (by_line) {
      name = table.line_label(row.id);
      where = table.functions[table.lines[row.id].function].name;
    } else {
      const auto& f = table.functions[row.id];
      name = f.name;
      if (!f.file.empty()) where = fmt::format("{}:{}", f.file, f.line);
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "{}{}</tr>\n",
        pct(r.flat.fraction(row.self)), pct(r.flat.fraction(row.total)),
        human_duration(row.self.time_ns), human_duration(row.total.time_ns),
        with_commas(row.self.samples),
        human_duration(static_cast<uint64_t>(row.self_per_thread.mean())),
        human_duration(static_cast<uint64_t>(row.self_per_thread.max())), name_cell(name),
        name_cell(where));
  }
  if (n < rows.size()) {
    Measure rest;
    for (size_t i = n; i < rows.size(); ++i) {
      rest.samples += rows[i].self.samples;
      rest.time_ns += rows[i].self.time_ns;
    }
    more_rows(out, 9, rows.size() - n, by_line ? "line" : "function",
              by_line ? "lines" : "functions", r.flat.fraction(rest));
  }
  out += "</tbody></table>\n";
  if (const auto f = unsampled_footer(r); !f.empty()) {
    out += "<p class=\"note unsampled\">" + esc(f) + "</p>\n";
  }
}

void threads(std::string& out, const Report& r, const RenderOptions& o) {
  // Threads with samples and what ran without one (profile/cpu_accounting.h), by time.
  struct Row {
    uint64_t ns = 0;
    const BreakdownRow* row = nullptr;
    std::string unsampled;
  };
  std::vector<Row> rows;
  for (const auto& row : r.breakdown.threads) rows.push_back({row.time.time_ns, &row, {}});
  for (const auto& g : r.cpu.unsampled_processes) {
    rows.push_back({g.cpu_time_ns, nullptr, unsampled_processes_label(g)});
  }
  for (const auto& g : r.cpu.unsampled_threads) {
    rows.push_back({g.cpu_time_ns, nullptr, unsampled_threads_label(r.processes[g.process], g)});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.ns > b.ns; });
  const size_t n = rows_shown(rows.size(), o.top);
  out += fmt::format("<h2>Threads</h2><p class=\"note\">top {} of {}</p>\n", n,
                     with_commas(rows.size()));
  html_table_head(out, {"share", "time", "samples", "CPU time", "<thread", "<top function (self)"},
                  "threads");
  for (size_t i = 0; i < n; ++i) {
    if (rows[i].row == nullptr) {
      out += fmt::format(
          "<tr class=\"unsampled\"><td>{}</td><td>-</td><td>-</td><td>{}</td><td "
          "class=\"name\">{}</td><td class=\"name\"></td></tr>\n",
          pct(r.share_ns(rows[i].ns)), human_duration(rows[i].ns), esc(rows[i].unsampled));
      continue;
    }
    const auto& row = *rows[i].row;
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"name\">{}</td><td "
        "class=\"name\">{}</td></tr>\n",
        pct(r.share(row.time)), human_duration(row.time.time_ns), with_commas(row.time.samples),
        row.cpu_time_ns ? human_duration(row.cpu_time_ns) : "-",
        esc(thread_label(r.processes[row.process], row.thread)),
        esc(r.symbols.table.functions[row.top_function].name));
  }
  if (n < rows.size()) {
    uint64_t ns = 0;
    for (size_t i = n; i < rows.size(); ++i) ns += rows[i].ns;
    more_rows(out, 6, rows.size() - n, "thread", "threads", r.share_ns(ns));
  }
  out += "</tbody></table>\n";
}

// Where threads waited off CPU (profile/wait_view.h): the rows that stand out, for processes
// sampled on both clocks.
void waits(std::string& out, const Report& r, const RenderOptions& o) {
  const WaitView& w = r.waits;
  if (w.processes == 0) return;
  const size_t shown_rows = w.rows_standing_out();
  const size_t n = rows_shown(shown_rows, o.top);
  out += fmt::format(
      "<h2>Waits</h2><p class=\"note\">off CPU (wall-clock time less CPU time) by the call a "
      "thread waited in and the code that made it: {} of {} of wall-clock time; top {} of {} "
      "that stand out from the sampling noise</p>\n",
      human_duration(w.off_cpu_ns()), human_duration(w.wall.time_ns), n, shown_rows);
  html_table_head(out, {"off CPU", "±95%", "wall", "CPU", "threads", "<call", "<called from"},
                  "waits");
  for (size_t i = 0; i < n; ++i) {
    const auto& row = w.rows[i];
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"name\">{}</td><td "
        "class=\"name\">{}</td></tr>\n",
        human_duration(static_cast<uint64_t>(row.off_cpu_ns())), human_duration(row.half_width_ns),
        human_duration(row.wall.time_ns), human_duration(row.cpu.time_ns), row.threads,
        esc(wait_call_name(r.symbols.table, row)), esc(wait_caller_label(r, row)));
  }
  out += "</tbody></table>\n";
}

void modules(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& rows = r.modules;
  if (rows.empty()) return;
  const size_t n = rows_shown(rows.size(), o.top);
  out += fmt::format("<h2>Modules</h2><p class=\"note\">self time by module: top {} of {}</p>\n", n,
                     with_commas(rows.size()));
  html_table_head(out, {"self", "time", "samples", "functions", "<module", "<top function (self)"},
                  "modules");
  for (size_t i = 0; i < n; ++i) {
    const auto& row = rows[i];
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"name\">{}</td><td "
        "class=\"name\">{}</td></tr>\n",
        pct(r.flat.fraction(row.self)), human_duration(row.self.time_ns),
        with_commas(row.self.samples), row.functions, esc(row.module),
        esc(r.symbols.table.functions[row.top_function].name));
  }
  if (n < rows.size()) {
    more_rows(out, 6, rows.size() - n, "module", "modules",
              r.flat.fraction(Measure{0, self_ns_after(rows, n)}));
  }
  out += "</tbody></table>\n";
}

void ranks(std::string& out, const Report& r) {
  const auto& rows = r.breakdown.ranks;
  if (rows.size() < 2) return;
  out +=
      "<h2>Ranks</h2><p class=\"note\">MPI wait: time in MPI calls that wait for other ranks, "
      "and its share of the time of the threads that call MPI; outside: the rest of that "
      "time (work). Per thread: the time per sampled thread of the rank's processes.</p>\n";
  html_table_head(
      out,
      {"rank", "processes", "threads", "share", "time", "MPI wait", "outside", "mean/thread",
       "min/thread", "max/thread", "stddev/thread", "<top function (self)"},
      "ranks");
  for (const auto& row : rows) {
    const auto& s = row.time_per_thread;
    const bool mpi = row.mpi_threads.samples > 0;
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"name\">{}</td></tr>\n",
        rank_row_name(row.rank), row.processes, row.threads, pct(r.share(row.time)),
        human_duration(row.time.time_ns),
        mpi ? fmt::format("{} ({:.0f}%)", human_duration(row.mpi_wait.time_ns),
                          100.0 * static_cast<double>(row.mpi_wait.time_ns) /
                              static_cast<double>(row.mpi_threads.time_ns))
            : "-",
        mpi ? human_duration(row.outside_mpi_wait_ns()) : "-",
        human_duration(static_cast<uint64_t>(s.mean())),
        human_duration(static_cast<uint64_t>(s.min())),
        human_duration(static_cast<uint64_t>(s.max())),
        human_duration(static_cast<uint64_t>(s.stddev())),
        esc(r.symbols.table.functions[row.top_function].name));
  }
  out += "</tbody></table>\n";
  const auto lines = rank_spread_lines(r);
  if (!lines.empty()) {
    out += "<ul id=\"rank-spread\">\n";
    for (const auto& line : lines) out += "<li>" + esc(line) + "</li>\n";
    out += "</ul>\n";
  }
}

void counters(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& c = r.counters;
  if (!c.any_values()) return;
  out += "<h2>Counters by function (self)</h2>\n<table id=\"counters\"><thead><tr>";
  for (const auto& e : c.events) out += "<th>" + esc(e.name) + "</th>";
  for (const auto& ratio : c.ratios) out += "<th>" + esc(ratio.name) + "</th>";
  out += "<th class=\"name\">function</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < rows_shown(c.functions.size(), o.top); ++i) {
    const auto& row = c.functions[i];
    // Sorted by self values: the rest are callers only.
    if (std::all_of(row.self.begin(), row.self.end(), [](uint64_t v) { return v == 0; })) break;
    out += "<tr>";
    for (const uint64_t v : row.self) out += "<td>" + with_commas(v) + "</td>";
    for (const auto& ratio : c.ratios) {
      const double v = ratio_value(ratio, row.self);
      out += v < 0 ? "<td>-</td>" : fmt::format("<td>{:.3f}</td>", v);
    }
    out +=
        "<td class=\"name\">" + esc(r.symbols.table.functions[row.function].name) + "</td></tr>\n";
  }
  out += "</tbody></table>\n";
}

// A stable warm colour per function name, as flame graphs use.
std::string colour(const std::string& name) {
  uint32_t h = 2166136261u;
  for (const char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 16777619u;
  return fmt::format("rgb({},{},{})", 205 + h % 50, 80 + (h >> 8) % 130, 40 + (h >> 16) % 50);
}

void icicle(std::string& out, const Report& r) {
  out += "<h2>Call tree</h2>\n";
  if (!r.tree || r.tree->nodes.size() <= 1 || r.tree->nodes[0].total.samples == 0) {
    out += "<p class=\"note\">(no samples with a stack)</p>\n";
    return;
  }
  const auto& nodes = r.tree->nodes;
  const auto& table = r.symbols.table;
  const bool by_time = nodes[0].total.time_ns > 0;
  const auto size = [&](const CallTreeNode& n) {
    return static_cast<double>(by_time ? n.total.time_ns : n.total.samples);
  };
  const double scale = kSvgWidth / size(nodes[0]);
  std::string boxes;
  uint32_t max_depth = 0;
  size_t drawn = 0;
  struct Item {
    uint32_t node;
    double x;
  };
  std::vector<Item> todo;
  double x0 = 0;
  for (const uint32_t c : nodes[0].children) {
    todo.push_back({c, x0});
    x0 += size(nodes[c]) * scale;
  }
  while (!todo.empty()) {
    const auto [id, x] = todo.back();
    todo.pop_back();
    const auto& n = nodes[id];
    const double w = size(n) * scale;
    if (w < kMinBoxWidth) continue;
    ++drawn;
    max_depth = std::max(max_depth, n.depth);
    const double y = (n.depth - 1) * kRowHeight;
    const auto& name = table.functions[n.function].name;
    boxes += fmt::format(
        "<g><title>{} &#10;total {} ({}), self {} ({})</title><rect x=\"{:.1f}\" y=\"{:.0f}\" "
        "width=\"{:.1f}\" "
        "height=\"{:.0f}\" fill=\"{}\"/>",
        esc(name), human_duration(n.total.time_ns), pct(r.flat.fraction(n.total)),
        human_duration(n.self.time_ns), pct(r.flat.fraction(n.self)), x, y, w, kRowHeight - 1,
        colour(name));
    const auto chars = static_cast<size_t>((w - 6) / kCharWidth);
    if (chars >= 3) {
      boxes += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\">{}</text>", x + 3, y + 12,
                           esc(fit_right(name, chars)));
    }
    boxes += "</g>\n";
    double cx = x;
    for (const uint32_t c : n.children) {
      todo.push_back({c, cx});
      cx += size(nodes[c]) * scale;
    }
  }
  const double height = max_depth * kRowHeight + 2;
  out += "<div id=\"icicle-static\">\n";
  out += fmt::format(
      "<p class=\"note\">icicle: outermost frames on top, width = total {} ({} boxes narrower than "
      "a pixel "
      "left out); hover a box for its numbers</p>\n",
      by_time ? "time" : "samples", drawn == nodes.size() - 1 ? "no" : "some");
  out += fmt::format(
      "<svg id=\"icicle\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\">\n",
      kSvgWidth, height, kSvgWidth, height);
  out += boxes;
  out += "</svg>\n</div>\n";
  html_flame_graph(out, r);
}

}  // namespace

std::string render_html(const Report& r, const RenderOptions& o) {
  std::string out;
  html_page_head(out, "causal-report");
  out += fmt::format(
      "<h1>causal-report</h1>\n<p id=\"summary\" data-profile-clock=\"{}\" "
      "data-cpu-recorded-ns=\"{}\" data-cpu-coverage=\"{:.4f}\">{}, {}, {}, {} "
      "sampled{}; symbols: {}</p>\n",
      r.clock_kind(), r.cpu.recorded_ns, r.cpu.coverage(),
      plural(r.processes.size(), "process", "processes"), plural(r.threads(), "thread"),
      plural(r.samples(), "sample"), human_duration(r.flat.all.time_ns),
      r.clock_summary().empty() ? "" : " (" + esc(r.clock_summary()) + ")",
      esc(r.symbols.table.source));
  if (!r.filter.empty()) out += fmt::format("<p id=\"filter\">only {}</p>\n", esc(r.filter));
  if (const auto cpu = cpu_account_line(r); !cpu.empty()) {
    out += "<p id=\"cpu-coverage\">" + esc(cpu) + "</p>\n";
  }
  // The causal profile: one SVG plot per location and progress point with its
  // confidence band. Kept first, because it is the answer when experiments exist.
  html_causal_section(out, r.causal);
  out += "<section id=\"profile\">\n";
  processes(out, r, o);
  flat_table(out, r, o, false);
  icicle(out, r);
  flat_table(out, r, o, true);
  threads(out, r, o);
  waits(out, r, o);
  modules(out, r, o);
  ranks(out, r);
  counters(out, r, o);
  out += "</section>\n";
  html_gpu(out, r, o);
  out += "</body></html>\n";
  return out;
}

}  // namespace cprof::report
