// The terminal report: a header that says what was measured and what was not, then the
// flat profile as a table that fits `width` columns.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/render/render.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

constexpr size_t kProcessLines = 8;  // processes listed one per line before summarizing
constexpr size_t kMessageLines = 10;

void line(std::string& out, size_t width, const std::string& text) {
  out += fit_right(text, width);
  out += '\n';
}

std::string process_line(const ProcessProfile& p) {
  const auto& pr = p.process;
  std::string s = "  " + p.label();
  if (!pr.hostname.empty()) s += " on " + pr.hostname;
  if (!p.run.empty()) s += " (" + p.run + ")";
  s += ":";
  if (p.has_process_record) {
    s += fmt::format(" {}, {} clock, {:g} Hz,", pr.engine.empty() ? "?" : pr.engine,
                     pr.clock.empty() ? "?" : pr.clock, pr.frequency_hz);
  }
  s += fmt::format(" ran {}, {} threads, {} samples", human_duration(p.duration_ns()),
                   p.threads.size(), with_commas(p.samples));
  if (p.truncated_samples) s += fmt::format(", {} truncated", with_commas(p.truncated_samples));
  if (const auto d = p.dropped_samples()) s += fmt::format(", {} dropped", with_commas(d));
  if (const auto rss = p.peak_rss_bytes()) {
    s += fmt::format(", peak RSS {:.1f} MB", static_cast<double>(rss) / 1e6);
  }
  if (const double cpu = p.cpu_utilization(); cpu >= 0) s += fmt::format(", {:.2f} CPUs", cpu);
  return s;
}

void header(std::string& out, const Report& r, size_t width) {
  line(out, width,
       fmt::format("causal-report: {} process{}, {} threads, {} samples, {} sampled; symbols: {}",
                   r.processes.size(), r.processes.size() == 1 ? "" : "es", r.threads(),
                   with_commas(r.samples()), human_duration(r.flat.all.time_ns),
                   r.symbols.table.source));
  for (size_t i = 0; i < r.processes.size() && i < kProcessLines; ++i) {
    line(out, width, process_line(r.processes[i]));
  }
  if (r.processes.size() > kProcessLines) {
    line(out, width, fmt::format("  ... and {} more processes", r.processes.size() - kProcessLines));
  }

  // The same event or message in many processes is said once, with how many.
  std::map<std::string, size_t> unavailable, zero, messages;
  for (const auto& p : r.processes) {
    for (const auto& e : p.events) {
      if (e.status == format::EventStatus::unavailable) {
        ++unavailable[e.detail.empty() ? e.name : e.name + " (" + e.detail + ")"];
      } else if (e.status == format::EventStatus::counted_zero) {
        ++zero[e.name];
      }
    }
    for (const auto& m : p.messages) {
      static constexpr const char* kLevel[] = {"info", "warning", "error"};
      const auto level = static_cast<size_t>(m.level);
      ++messages[fmt::format("{}: {}", level < 3 ? kLevel[level] : "?", m.text)];
    }
  }
  const auto times = [&](size_t n) {
    return r.processes.size() > 1 ? fmt::format(" [{} of {} processes]", n, r.processes.size())
                                  : std::string();
  };
  for (const auto& [text, n] : unavailable) line(out, width, "unavailable event: " + text + times(n));
  for (const auto& [text, n] : zero) line(out, width, "event counted nothing: " + text + times(n));
  size_t shown = 0;
  for (const auto& [text, n] : messages) {
    if (shown++ == kMessageLines) {
      line(out, width, fmt::format("... and {} more messages", messages.size() - kMessageLines));
      break;
    }
    line(out, width, "message " + text + times(n));
  }
  if (!r.warnings.empty()) {
    line(out, width,
         fmt::format("{} warning{} while reading (on stderr); {} of {} files loaded",
                     r.warnings.size(), r.warnings.size() == 1 ? "" : "s",
                     r.files_found - r.files_failed, r.files_found));
  }
}

void table(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& table = r.symbols.table;
  const bool by_line = o.by == RowKind::line;
  const auto& rows = by_line ? r.flat.lines : r.flat.functions;
  const size_t n = o.top == 0 ? rows.size() : std::min(o.top, rows.size());
  out += '\n';
  line(out, o.width,
       fmt::format("{} by self time (top {} of {}; {} samples with a stack in {} threads)",
                   by_line ? "Lines" : "Functions", n, with_commas(rows.size()),
                   with_commas(r.flat.all.samples), r.flat.threads));
  // Fixed columns take 39; the name and its location share the rest.
  constexpr size_t kFixed = 39;
  const size_t rest = o.width > kFixed + 20 ? o.width - kFixed : 20;
  const size_t where_width = std::min<size_t>(30, rest / 2);
  line(out, o.width,
       fmt::format("{:>7} {:>7} {:>9} {:>11}  {}", "self%", "total%", "self", "samples",
                   by_line ? "location (function)" : "function (location)"));
  for (size_t i = 0; i < n; ++i) {
    const auto& row = rows[i];
    std::string name, where;
    if (by_line) {
      const auto& l = table.lines[row.id];
      name = l.file.empty() ? table.line_label(row.id)
                            : fmt::format("{}:{}", base_name(l.file), l.line);
      where = l.file.empty() ? "" : table.functions[l.function].name;
    } else {
      const auto& f = table.functions[row.id];
      name = f.name;
      if (!f.file.empty()) where = fmt::format("{}:{}", base_name(f.file), f.line);
    }
    std::string cells;
    if (by_line) {
      // A line's location is short; its function gets what is left.
      const std::string loc = fit_left(name, where_width);
      cells = where.empty() ? loc : loc + "  " + fit_right(where, rest - loc.size() - 2);
    } else {
      const std::string loc = fit_left(where, where_width);
      const size_t name_width = loc.empty() ? rest : rest - loc.size() - 2;
      cells = fit_right(name, name_width);
      if (!loc.empty()) cells += std::string(name_width - cells.size() + 2, ' ') + loc;
    }
    line(out, o.width,
         fmt::format("{:>6.2f}% {:>6.2f}% {:>9} {:>11}  {}", 100 * r.flat.fraction(row.self),
                     100 * r.flat.fraction(row.total), human_duration(row.self.time_ns),
                     with_commas(row.self.samples), cells));
  }
  if (rows.empty()) line(out, o.width, "  (no samples with a stack)");
}

}  // namespace

std::string render_text(const Report& report, const RenderOptions& options) {
  std::string out;
  header(out, report, options.width);
  table(out, report, options);
  return out;
}

}  // namespace cprof::report
