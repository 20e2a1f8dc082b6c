// The terminal report: a header that says what was measured and what was not, then the
// flat profile as a table that fits `width` columns.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "causal/runtime/settings.h"
#include "report/render/coverage_warning.h"
#include "report/render/cpu_account_note.h"
#include "report/render/cut_short_note.h"
#include "report/render/gpu_render.h"
#include "report/render/rank_spread_note.h"
#include "report/render/render.h"
#include "report/render/text_causal.h"
#include "report/render/text_rows.h"
#include "report/render/text_source.h"
#include "report/render/text_util.h"
#include "report/render/text_views.h"
#include "report/render/unnamed_code_note.h"

namespace cprof::report {
namespace {

constexpr size_t kProcessLines = 8;  // processes listed one per line before summarizing
constexpr size_t kMessageLines = 10;

// The causal locations whose experiments ran in the processes `which`: those the CPU-wait
// warning affects. "" without any.
std::string affected_predictions(const Report& r, const std::vector<size_t>& which) {
  std::set<std::string> locations;
  for (const size_t i : which) {
    for (const auto& e : r.processes[i].experiments) locations.insert(e.location);
  }
  if (locations.empty()) return "";
  constexpr size_t kNamed = 5;
  std::string names;
  size_t n = 0;
  for (const auto& l : locations) {
    if (n++ == kNamed) break;
    names += (names.empty() ? "" : ", ") + l;
  }
  if (locations.size() > kNamed) names += fmt::format(" and {} more", locations.size() - kNamed);
  return " (it affects the predictions of " + names + ")";
}

// The non-empty `lines` (one per process), up to kProcessLines, then `more` with how many
// were left out.
void per_process_lines(std::string& out, size_t width, const std::vector<std::string>& lines,
                       fmt::format_string<size_t> more) {
  size_t said = 0;
  for (const auto& line : lines) {
    if (line.empty()) continue;
    if (said++ < kProcessLines) add_wrapped(out, width, line);
  }
  if (said > kProcessLines) add_line(out, width, fmt::format(more, said - kProcessLines));
}

std::string process_line(const ProcessProfile& p) {
  const auto& pr = p.process;
  std::string s = "  " + p.label();
  if (!pr.hostname.empty()) s += " on " + pr.hostname;
  if (!p.run.empty()) s += " (" + p.run + ")";
  s += ":";
  if (p.has_process_record) {
    s += fmt::format(" {} {} clock {:g} Hz;", pr.engine.empty() ? "?" : pr.engine,
                     pr.clock.empty() ? "?" : pr.clock, pr.frequency_hz);
  }
  if (p.other_clock_samples > 0 || p.clock == format::SampleClock::wall) {
    // Sampled on both clocks: the profile is one of them, never their sum.
    const bool wall = p.clock == format::SampleClock::wall;
    s += fmt::format(" profile: {} clock", wall ? "wall" : "CPU");
    if (p.other_clock_samples > 0) {
      s += fmt::format(" ({} {}-clock samples, {}, set aside: --clock {} shows them)",
                       with_commas(p.other_clock_samples), wall ? "CPU" : "wall",
                       human_duration(p.other_clock_weight_ns), wall ? "cpu" : "wall");
    }
    s += ";";
  }
  s += fmt::format(" ran {}, {}, {}", human_duration(p.duration_ns()),
                   plural(p.threads.size(), "thread"), plural(p.samples, "sample"));
  if (p.truncated_samples) s += fmt::format(", {} truncated", with_commas(p.truncated_samples));
  if (const auto d = p.dropped_samples()) s += fmt::format(", {} dropped", with_commas(d));
  if (p.cut) s += ", cut short (no end record)";
  std::string metrics;
  if (const auto rss = p.peak_rss_bytes()) {
    metrics = fmt::format("peak RSS {:.1f} MB", static_cast<double>(rss) / 1e6);
  }
  if (const double cpu = p.cpu_utilization(); cpu >= 0) {
    metrics += fmt::format("{}{:.2f} CPUs busy", metrics.empty() ? "" : ", ", cpu);
  }
  if (!metrics.empty()) s += "; " + metrics;
  return s;
}

void header(std::string& out, const Report& r, size_t width) {
  const std::string clock = r.clock_summary();
  add_line(
      out, width,
      fmt::format("causal-report: {}, {}, {}, {} sampled{}; symbols: {}",
                  plural(r.processes.size(), "process", "processes"), plural(r.threads(), "thread"),
                  plural(r.samples(), "sample"), human_duration(r.flat.all.time_ns),
                  clock.empty() ? "" : " (" + clock + ")", r.symbols.table.source));
  if (!r.filter.empty()) add_line(out, width, "  only " + r.filter);
  // What share of the recorded CPU time the samples cover, and what ran unsampled.
  if (const auto cpu = cpu_account_line(r); !cpu.empty()) add_wrapped(out, width, cpu);
  // More processes than lines (a shell script's helpers, a build): the ones with the most
  // samples, in that order, so that the program that did the work is not among the rest.
  std::vector<size_t> listed(r.processes.size());
  std::iota(listed.begin(), listed.end(), size_t{0});
  if (listed.size() > kProcessLines) {
    std::stable_sort(listed.begin(), listed.end(), [&](size_t a, size_t b) {
      return r.processes[a].samples > r.processes[b].samples;
    });
  }
  uint64_t rest_samples = r.samples();
  for (size_t i = 0; i < listed.size() && i < kProcessLines; ++i) {
    add_wrapped(out, width, process_line(r.processes[listed[i]]));
    rest_samples -= std::min(rest_samples, r.processes[listed[i]].samples);
  }
  if (r.processes.size() > kProcessLines) {
    add_line(out, width, fmt::format("  ... and {} more processes, {}", r.processes.size() - kProcessLines,
                                     plural(rest_samples, "sample")));
  }
  // Threads that ran unsampled, and much time in code of no file (JIT code without a perf
  // map): a line per process that has it (every process, listed or not).
  std::vector<std::string> cut, unsampled, unnamed;
  for (size_t i = 0; i < r.processes.size(); ++i) {
    cut.push_back(cut_short_note(r.processes[i]));
    if (i < r.coverage.size()) unsampled.push_back(coverage_warning(r.processes[i], r.coverage[i]));
    if (i < r.unnamed_code.size()) unnamed.push_back(unnamed_code_note(r.processes[i], r.unnamed_code[i]));
  }
  per_process_lines(out, width, cut, "warning: ... and {} more processes without an end record");
  per_process_lines(out, width, unsampled, "warning: ... and {} more processes with threads that ran unsampled");
  per_process_lines(out, width, unnamed,
                    "note: ... and {} more processes with samples in code outside every file");
  for (const auto& m : r.unnamed_modules) add_wrapped(out, width, unnamed_module_note(m));
  if (const auto mpi = mpi_summary_line(r); !mpi.empty()) add_wrapped(out, width, mpi);

  // The same event or message in many processes is said once, with how many.
  std::map<std::string, size_t> unavailable, zero, noted, messages;
  std::map<std::string, std::vector<size_t>> message_processes;  // the CPU-wait warning's
  for (const auto& p : r.processes) {
    for (const auto& e : p.events) {
      if (e.status == format::EventStatus::unavailable) {
        ++unavailable[e.detail.empty() ? e.name : e.name + " (" + e.detail + ")"];
      } else if (e.status == format::EventStatus::counted_zero) {
        ++zero[e.name];
      } else if (!e.detail.empty()) {  // counted, not as asked (e.g. user level only)
        ++noted[e.name + " counted " + e.detail];
      }
    }
    for (const auto& m : p.messages) {
      static constexpr const char* kLevel[] = {"info", "warning", "error"};
      const auto level = static_cast<size_t>(m.level);
      const std::string text = fmt::format("{}: {}", level < 3 ? kLevel[level] : "?", m.text);
      ++messages[text];
      if (m.text.starts_with(causal::kCpuWaitWarningStart)) {
        message_processes[text].push_back(static_cast<size_t>(&p - r.processes.data()));
      }
    }
  }
  const auto times = [&](size_t n) {
    return r.processes.size() > 1 ? fmt::format(" [{} of {} processes]", n, r.processes.size())
                                  : std::string();
  };
  for (const auto& [text, n] : unavailable)
    add_wrapped(out, width, "unavailable event: " + text + times(n));
  for (const auto& [text, n] : zero)
    add_wrapped(out, width, "event counted nothing: " + text + times(n));
  for (const auto& [text, n] : noted) add_wrapped(out, width, "event " + text + times(n));
  size_t shown = 0;
  for (const auto& [text, n] : messages) {
    if (shown++ == kMessageLines) {
      add_line(out, width, fmt::format("... and {} more messages", messages.size() - kMessageLines));
      break;
    }
    const auto affected = message_processes.find(text);
    add_wrapped(
        out, width,
        "message " + text + times(n) +
            (affected == message_processes.end() ? "" : affected_predictions(r, affected->second)));
  }
  if (!r.warnings.empty()) {
    add_line(out, width,
             fmt::format("{} while reading (on stderr); {} of {} loaded",
                         plural(r.warnings.size(), "warning"), r.files_found - r.files_failed,
                         plural(r.files_found, "file")));
  }
}

void table(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& table = r.symbols.table;
  const bool by_line = o.by == RowKind::line;
  const auto& rows = by_line ? r.flat.lines : r.flat.functions;
  const size_t n = o.top == 0 ? rows.size() : std::min(o.top, rows.size());
  out += '\n';
  add_line(out, o.width,
       fmt::format("{} by self time (top {} of {}; {} with a stack in {})",
                   by_line ? "Lines" : "Functions", n, with_commas(rows.size()),
                   plural(r.flat.all.samples, "sample"), plural(r.flat.threads, "thread")));
  // Fixed columns take 39; the name and its location share the rest.
  constexpr size_t kFixed = 39;
  const size_t rest = o.width > kFixed + 20 ? o.width - kFixed : 20;
  const size_t where_width = std::min<size_t>(30, rest / 2);
  add_line(out, o.width,
       fmt::format("{:>7} {:>7} {:>9} {:>11}  {}", "self%", "total%", "self", "samples",
                   by_line ? "location (function)" : "function (location)"));
  // Line locations are short: one column as wide as the widest shown, functions after it.
  size_t line_width = 0;
  for (size_t i = 0; by_line && i < n; ++i) {
    line_width =
        std::max(line_width, std::min(where_width, row_label(table, rows[i].id, true).name.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& row = rows[i];
    const std::string cells = row_cells(row_label(table, row.id, by_line), by_line, rest,
                                        where_width, line_width);
    add_line(out, o.width,
         fmt::format("{:>6.2f}% {:>6.2f}% {:>9} {:>11}  {}", 100 * r.flat.fraction(row.self),
                     100 * r.flat.fraction(row.total), human_duration(row.self.time_ns),
                     with_commas(row.self.samples), cells));
  }
  if (rows.empty()) add_line(out, o.width, "  (no samples with a stack)");
  if (n < rows.size()) {
    Measure left_out;
    for (size_t i = n; i < rows.size(); ++i) {
      left_out.samples += rows[i].self.samples;
      left_out.time_ns += rows[i].self.time_ns;
    }
    add_line(out, o.width,
             "  " + more_rows_line("...", rows.size() - n, by_line ? "line" : "function",
                                   by_line ? "lines" : "functions", r.flat.fraction(left_out)));
  }
  if (const auto f = unsampled_footer(r); !f.empty()) add_line(out, o.width, f);
  if (const auto w = waits_summary_line(r); !w.empty()) add_wrapped(out, o.width, w);
}

}  // namespace

std::string render_text(const Report& report, const RenderOptions& options) {
  std::string out;
  header(out, report, options.width);
  if (!options.source_file.empty()) {
    text_source(out, report, options);
  } else if (options.view == View::tree) {
    text_call_tree(out, report, options);
  } else if (options.by == RowKind::function || options.by == RowKind::line) {
    table(out, report, options);
  } else {
    text_breakdown(out, report, options);
  }
  text_counters(out, report, options);
  text_gpu(out, report, options);
  text_causal(out, report);
  return out;
}

}  // namespace cprof::report
