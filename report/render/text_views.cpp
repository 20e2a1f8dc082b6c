// Text views beside the flat table: `--view tree`, `--by thread|process|rank`, and the
// counters per function (shown whenever samples carried counter values).
#include "report/render/text_views.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/render/rank_spread_note.h"
#include "report/render/cpu_account_note.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

// A row of a table by thread or process: a group's breakdown row, or what ran without a
// sample (its CPU time: profile/cpu_accounting.h), ranked together by time.
struct ViewRow {
  uint64_t ns = 0;
  const BreakdownRow* row = nullptr;
  std::string unsampled;  // the label of an unsampled row
};

void by_time(std::vector<ViewRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const ViewRow& a, const ViewRow& b) { return a.ns > b.ns; });
}

// The processes without a sample, each in one of the groups that stand for them.
std::vector<char> grouped_processes(const Report& r) {
  std::vector<char> grouped(r.processes.size(), 0);
  for (const auto& g : r.cpu.unsampled_processes) {
    for (const size_t m : g.members) grouped[m] = 1;
  }
  return grouped;
}

void unsampled_processes_rows(const Report& r, std::vector<ViewRow>& rows) {
  for (const auto& g : r.cpu.unsampled_processes) {
    rows.push_back({.ns = g.cpu_time_ns, .unsampled = unsampled_processes_label(g)});
  }
}

// After a table cut at `shown` rows: how many were left out and their share; then what
// the unsampled rows are.
void table_end(std::string& out, const Report& r, const RenderOptions& o,
               const std::vector<ViewRow>& rows, size_t shown, const char* word,
               const char* words) {
  if (shown < rows.size()) {
    uint64_t ns = 0;
    for (size_t i = shown; i < rows.size(); ++i) ns += rows[i].ns;
    add_line(out, o.width,
             "  " + more_rows_line("...", rows.size() - shown, word, words, r.share_ns(ns)));
  }
  for (size_t i = 0; i < shown; ++i) {
    if (rows[i].row != nullptr) continue;
    add_line(out, o.width,
             "  [unsampled: ...]: CPU time recorded by processes or threads without a sample");
    break;
  }
}

// "name 42%": the group's hottest function and its share of the group's time.
std::string top_function(const Report& r, const BreakdownRow& row) {
  if (row.time.samples == 0) return "";
  const auto& name = r.symbols.table.functions[row.top_function].name;
  if (row.time.time_ns == 0) return name;
  return fmt::format(
      "{} {:.0f}%", name,
      100.0 * static_cast<double>(row.top_function_ns) / static_cast<double>(row.time.time_ns));
}

void threads_table(std::string& out, const Report& r, const RenderOptions& o) {
  std::vector<ViewRow> rows;
  for (const auto& row : r.breakdown.threads) rows.push_back({.ns = row.time.time_ns, .row = &row});
  unsampled_processes_rows(r, rows);
  for (const auto& g : r.cpu.unsampled_threads) {
    rows.push_back(
        {.ns = g.cpu_time_ns, .unsampled = unsampled_threads_label(r.processes[g.process], g)});
  }
  by_time(rows);
  const size_t n = o.rows(rows.size());
  add_line(out, o.width, fmt::format("Threads by time (top {} of {})", n, with_commas(rows.size())));
  // Fixed columns take 41; the thread label and its top function share the rest.
  const size_t rest = o.width > 61 ? o.width - 41 : 20;
  const size_t label_width = std::min<size_t>(30, rest / 2);
  add_line(out, o.width,
       fmt::format("{:>7} {:>9} {:>11} {:>9}  {:<{}}  {}", "share", "time", "samples", "cpu time",
                   "thread", label_width, "top function (self)"));
  for (size_t i = 0; i < n; ++i) {
    if (rows[i].row == nullptr) {
      add_line(out, o.width,
               fmt::format("{} {:>9} {:>11} {:>9}  {}", percent_cell(r.share_ns(rows[i].ns)),
                           human_duration(rows[i].ns), "-", human_duration(rows[i].ns),
                           rows[i].unsampled));
      continue;
    }
    const auto& row = *rows[i].row;
    const auto& p = r.processes[row.process];
    add_line(out, o.width,
             fmt::format("{} {:>9} {:>11} {:>9}  {:<{}}  {}", percent_cell(r.share(row.time)),
                         human_duration(row.time.time_ns), with_commas(row.time.samples),
                         row.cpu_time_ns ? human_duration(row.cpu_time_ns) : "-",
                         fit_right(thread_label(p, row.thread, label_width), label_width),
                         label_width, top_function(r, row)));
  }
  table_end(out, r, o, rows, n, "thread", "threads");
}

void processes_table(std::string& out, const Report& r, const RenderOptions& o) {
  std::vector<ViewRow> rows;
  const auto grouped = grouped_processes(r);
  for (const auto& row : r.breakdown.processes) {
    if (!grouped[row.process]) rows.push_back({.ns = row.time.time_ns, .row = &row});
  }
  unsampled_processes_rows(r, rows);
  by_time(rows);
  const size_t n = o.rows(rows.size());
  add_line(out, o.width, fmt::format("Processes by time (top {} of {})", n, with_commas(rows.size())));
  add_line(out, o.width,
       fmt::format("{:>7} {:>9} {:>10} {:>7} {:>9} {:>5} {:>11} {:>11}  {}", "share", "time",
                   "samples", "threads", "peak RSS", "CPUs", "flt mn/mj", "ctx v/inv", "process"));
  constexpr size_t kFixed = 78;  // the columns before the process's label
  const size_t label_width = o.width > kFixed + 20 ? o.width - kFixed : 20;
  for (size_t i = 0; i < n; ++i) {
    if (rows[i].row == nullptr) {  // the label over the empty metric columns
      add_line(out, o.width,
               fmt::format("{} {:>9} {:>10}  {}", percent_cell(r.share_ns(rows[i].ns)),
                           human_duration(rows[i].ns), "-", rows[i].unsampled));
      continue;
    }
    const auto& row = *rows[i].row;
    const auto& p = r.processes[row.process];
    const auto& m = r.breakdown.metrics[row.process];
    const bool metrics = m.records > 0;
    add_line(
        out, o.width,
        fmt::format(
            "{} {:>9} {:>10} {:>7} {:>9} {:>5} {:>11} {:>11}  {}", percent_cell(r.share(row.time)),
            human_duration(row.time.time_ns), short_count(row.time.samples), row.threads,
            metrics ? fmt::format("{:.1f} MB", static_cast<double>(m.peak_rss_bytes) / 1e6) : "-",
            m.cpu_utilization >= 0 ? fmt::format("{:.2f}", m.cpu_utilization) : "-",
            metrics ? short_count(m.minor_faults) + "/" + short_count(m.major_faults) : "-",
            metrics ? short_count(m.voluntary_switches) + "/" + short_count(m.involuntary_switches)
                    : "-",
            p.label(label_width)));
  }
  table_end(out, r, o, rows, n, "process", "processes");
}

// Ranks that call MPI: each one's time in MPI waits and outside them, and the spread
// across ranks. Ranks without MPI (Slurm tasks): the time per thread of each.
void ranks_table(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& rows = r.breakdown.ranks;
  const size_t n = o.rows(rows.size());
  const bool mpi = std::any_of(rows.begin(), rows.end(),
                               [](const BreakdownRow& row) { return row.mpi_threads.samples > 0; });
  add_line(out, o.width,
           fmt::format("Ranks (top {} of {}; {})", n, rows.size(),
                       mpi ? "MPI wait: in calls that wait for other ranks, % of MPI threads' time"
                           : "time per thread: mean, min, max"));
  add_line(
      out, o.width,
      mpi ? fmt::format("{:>8} {:>5} {:>7} {:>7} {:>9} {:>15} {:>9}  {}", "rank", "procs",
                        "threads", "share", "time", "MPI wait", "outside", "top function (self)")
          : fmt::format("{:>5} {:>5} {:>7} {:>7} {:>9} {:>9} {:>9} {:>9}  {}", "rank", "procs",
                        "threads", "share", "time", "mean/thr", "min/thr", "max/thr",
                        "top function (self)"));
  for (size_t i = 0; i < n; ++i) {
    const auto& row = rows[i];
    const auto& s = row.time_per_thread;
    const bool calls = row.mpi_threads.samples > 0;
    add_line(
        out, o.width,
        mpi ? fmt::format("{:>8} {:>5} {:>7} {} {:>9} {:>15} {:>9}  {}", rank_row_name(row.rank),
                          row.processes, row.threads, percent_cell(r.share(row.time)),
                          human_duration(row.time.time_ns),
                          calls ? fmt::format("{} {:>3.0f}%", human_duration(row.mpi_wait.time_ns),
                                              100.0 * static_cast<double>(row.mpi_wait.time_ns) /
                                                  static_cast<double>(row.mpi_threads.time_ns))
                                : "-",
                          calls ? human_duration(row.outside_mpi_wait_ns()) : "-",
                          top_function(r, row))
            : fmt::format("{:>5} {:>5} {:>7} {} {:>9} {:>9} {:>9} {:>9}  {}",
                          rank_row_name(row.rank), row.processes, row.threads,
                          percent_cell(r.share(row.time)), human_duration(row.time.time_ns),
                          human_duration(static_cast<uint64_t>(s.mean())),
                          human_duration(static_cast<uint64_t>(s.min())),
                          human_duration(static_cast<uint64_t>(s.max())), top_function(r, row)));
  }
  if (const auto f = unsampled_footer(r); !f.empty()) add_line(out, o.width, f);
  for (const auto& line : rank_spread_lines(r)) add_wrapped(out, o.width, "  " + line);
}

}  // namespace

std::string short_count(uint64_t n) {
  const double v = static_cast<double>(n);
  if (n < 10'000) return std::to_string(n);
  if (n < 10'000'000) return fmt::format("{:.3g}k", v / 1e3);
  if (n < 10'000'000'000) return fmt::format("{:.3g}M", v / 1e6);
  if (n < 10'000'000'000'000) return fmt::format("{:.3g}G", v / 1e9);
  return fmt::format("{:.3g}T", v / 1e12);
}

std::string thread_label(const ProcessProfile& p, uint32_t thread, size_t width) {
  const auto& t = p.threads[thread];
  // Thread first: a narrow column cuts the end, and the thread is what the row is about.
  std::string s = std::to_string(t.tid);
  if (!t.name.empty()) s += " " + t.name;
  s += " in ";
  return s + p.label(width > s.size() ? width - s.size() : 0);
}

// Self time by module: which library the time is in ("is it our code or libc's?").
void modules_table(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& rows = r.modules;
  const size_t n = o.rows(rows.size());
  add_line(out, o.width,
           fmt::format("Modules by self time (top {} of {})", n, with_commas(rows.size())));
  add_line(out, o.width,
           fmt::format("{:>7} {:>9} {:>11} {:>9}  {:<40}  {}", "self%", "self", "samples",
                       "functions", "module", "top function (self)"));
  for (size_t i = 0; i < n; ++i) {
    const auto& row = rows[i];
    const double top = row.self.time_ns == 0 ? 0.0
                                             : 100.0 * static_cast<double>(row.top_function_ns) /
                                                   static_cast<double>(row.self.time_ns);
    add_line(out, o.width,
             fmt::format("{} {:>9} {:>11} {:>9}  {:<40}  {} {:.0f}%",
                         percent_cell(r.flat.fraction(row.self)), human_duration(row.self.time_ns),
                         with_commas(row.self.samples), row.functions, fit_left(row.module, 40),
                         r.symbols.table.functions[row.top_function].name, top));
  }
  if (n < rows.size()) {
    add_line(out, o.width,
             "  " + more_rows_line("...", rows.size() - n, "module", "modules",
                                   r.flat.fraction(Measure{0, self_ns_after(rows, n)})));
  }
}

void text_breakdown(std::string& out, const Report& r, const RenderOptions& o) {
  out += '\n';
  switch (o.by) {
    case RowKind::module:
      modules_table(out, r, o);
      break;
    case RowKind::thread:
      threads_table(out, r, o);
      break;
    case RowKind::process:
      processes_table(out, r, o);
      break;
    case RowKind::rank:
      ranks_table(out, r, o);
      break;
    case RowKind::wait:
      waits_table(out, r, o);
      break;
    default:
      break;
  }
}

void text_call_tree(std::string& out, const Report& r, const RenderOptions& o) {
  out += '\n';
  if (!r.tree || r.tree->nodes.size() <= 1) {
    add_line(out, o.width, "Call tree: (no samples with a stack)");
    return;
  }
  const auto& nodes = r.tree->nodes;
  const double min_fraction = o.top == 0 ? 0.0 : kTreeMinFraction;
  const size_t max_lines = o.top == 0 ? SIZE_MAX : o.top;
  add_line(out, o.width,
           o.top == 0
               ? fmt::format("Call tree, top-down ({})", plural(nodes.size() - 1, "node"))
               : fmt::format("Call tree, top-down ({}; at most {} lines; nodes under 0.5% hidden)",
                             plural(nodes.size() - 1, "node"), max_lines));
  add_line(out, o.width, fmt::format("{:>7} {:>7} {:>9}  {}", "total%", "self%", "total", "function"));
  const size_t rest = o.width > 48 ? o.width - 28 : 20;
  const size_t hidden = walk_tree_lines(
      nodes, min_fraction, max_lines, [&](const auto& n) { return r.flat.fraction(n.total); },
      [&](const auto& n, const std::string& indent) {
        const auto& name = r.symbols.table.functions[n.function].name;
        add_line(out, o.width,
             fmt::format("{} {} {:>9}  {}{}", percent_cell(r.flat.fraction(n.total)),
                         percent_cell(r.flat.fraction(n.self)), human_duration(n.total.time_ns), indent,
                         fit_right(name, rest > indent.size() + 10 ? rest - indent.size() : 10)));
      });
  if (hidden) add_line(out, o.width, fmt::format("  ({} hidden)", plural(hidden, "subtree")));
  if (const auto f = unsampled_footer(r); !f.empty()) add_line(out, o.width, f);
}

void text_counters(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& c = r.counters;
  if (!c.any_values()) return;
  // As many event columns (13 wide) and ratio columns (8 wide) as leave 30 for the name.
  std::vector<size_t> events;
  for (size_t e = 0; e < c.events.size(); ++e) {
    if (c.events[e].total > 0) events.push_back(e);
  }
  // An event column is as wide as its name (context-switches, page-faults: whole), 13 at
  // least.
  const auto width_of = [&](size_t e) { return std::max<size_t>(13, c.events[e].name.size()); };
  size_t used = 0;
  size_t n_events = 0, n_ratios = 0;
  for (; n_events < events.size() && used + width_of(events[n_events]) + 1 + 30 <= o.width;
       ++n_events) {
    used += width_of(events[n_events]) + 1;
  }
  for (; n_ratios < c.ratios.size() && used + 9 + 30 <= o.width; ++n_ratios) used += 9;
  // Rows are sorted by self values: those with none (callers only) end the table, and
  // are left out here (JSON keeps their totals).
  size_t with_self = 0;
  while (with_self < c.functions.size() &&
         std::any_of(c.functions[with_self].self.begin(), c.functions[with_self].self.end(),
                     [](uint64_t v) { return v != 0; })) {
    ++with_self;
  }
  const size_t rows = o.rows(with_self);
  out += '\n';
  std::string title = fmt::format("Counters by function (self; top {} of {})", rows,
                                  with_commas(with_self));
  for (size_t i = 0; i < n_ratios; ++i) {
    title += fmt::format("; {} = {} / {}", c.ratios[i].name, c.events[c.ratios[i].numerator].name,
                         c.events[c.ratios[i].denominator].name);
  }
  add_line(out, o.width, title);
  std::string head;
  for (size_t i = 0; i < n_events; ++i)
    head += fmt::format("{:>{}} ", c.events[events[i]].name, width_of(events[i]));
  for (size_t i = 0; i < n_ratios; ++i)
    head += fmt::format("{:>8} ", fit_right(c.ratios[i].name, 8));
  add_line(out, o.width, head + " function");
  const auto cells = [&](const std::vector<uint64_t>& values) {
    std::string s;
    for (size_t i = 0; i < n_events; ++i)
      s += fmt::format("{:>{}} ", short_count(values[events[i]]), width_of(events[i]));
    for (size_t i = 0; i < n_ratios; ++i) {
      const double v = ratio_value(c.ratios[i], values);
      s += v < 0 ? fmt::format("{:>8} ", "-") : fmt::format("{:>8.3f} ", v);
    }
    return s;
  };
  for (size_t k = 0; k < rows; ++k) {
    const auto& row = c.functions[k];
    add_line(out, o.width, cells(row.self) + " " + r.symbols.table.functions[row.function].name);
  }
  // What every sample counted, whichever function it fell in (json: events[].total).
  std::vector<uint64_t> totals(c.events.size());
  for (size_t e = 0; e < c.events.size(); ++e) totals[e] = c.events[e].total;
  add_line(out, o.width, cells(totals) + " (total, all functions)");
}

}  // namespace cprof::report
