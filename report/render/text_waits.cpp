// The text report's view of waits (`--by wait`, profile/wait_view.h) and the line the
// function table of a wall-clock profile ends with, which points to it.

#include <fmt/format.h>

#include "report/render/text_util.h"
#include "report/render/text_views.h"

namespace cprof::report {
namespace {

double percent_of_wall(const WaitView& w, uint64_t ns) {
  return w.wall.time_ns == 0
             ? 0.0
             : 100.0 * static_cast<double>(ns) / static_cast<double>(w.wall.time_ns);
}

}  // namespace

std::string wait_caller_label(const Report& r, const WaitRow& row, size_t width) {
  if (!row.has_caller) return "-";
  const auto& table = r.symbols.table;
  const auto& line = table.lines[row.caller_line];
  const std::string where =
      line.file.empty() ? "" : fmt::format(" ({}:{})", base_name(line.file), line.line);
  const size_t name_width = width > where.size() + 12 ? width - where.size() : 12;
  return compact_function_name(table.functions[row.caller].name, name_width) + where;
}

void waits_table(std::string& out, const Report& r, const RenderOptions& o) {
  const WaitView& w = r.waits;
  add_line(
      out, o.width,
      fmt::format("Where threads waited off CPU, by call ({} in {}; wall-clock time less CPU time)",
                  plural(w.threads, "thread"), plural(w.processes, "process", "processes")));
  add_line(
      out, o.width,
      fmt::format("  {} off CPU of {} of wall-clock time ({:.1f}%)", human_duration(w.off_cpu_ns()),
                  human_duration(w.wall.time_ns), percent_of_wall(w, w.off_cpu_ns())));
  const size_t shown_rows = w.rows_standing_out();
  const size_t n = o.rows(shown_rows);
  // Fixed columns take 48; the call and its caller share the rest.
  constexpr size_t kFixed = 48;
  const size_t rest = o.width > kFixed + 40 ? o.width - kFixed - 2 : 40;
  // The call column as wide as the widest call shown (at most 22): the callers, which
  // carry a file and line, get the rest.
  size_t call_width = 4;
  for (size_t i = 0; i < n; ++i) {
    call_width = std::max(call_width, wait_call_name(r.symbols.table, w.rows[i]).size());
  }
  call_width = std::min<size_t>({call_width, 22, rest / 2});
  add_line(out, o.width,
           fmt::format("{:>9} {:>8} {:>9} {:>9} {:>7}  {:<{}}  {}", "off CPU", "±95%", "wall",
                       "CPU", "threads", "call", call_width, "called from"));
  for (size_t i = 0; i < n; ++i) {
    const auto& row = w.rows[i];
    add_line(out, o.width,
             fmt::format("{:>9} {:>8} {:>9} {:>9} {:>7}  {:<{}}  {}",
                         human_duration(static_cast<uint64_t>(row.off_cpu_ns())),
                         human_duration(row.half_width_ns), human_duration(row.wall.time_ns),
                         human_duration(row.cpu.time_ns), row.threads,
                         compact_function_name(wait_call_name(r.symbols.table, row), call_width),
                         call_width, wait_caller_label(r, row, rest - call_width)));
  }
  if (shown_rows == 0) {
    add_line(out, o.width, "  (no call's off-CPU time stands out from the sampling noise)");
  } else if (n < shown_rows) {
    add_line(out, o.width, fmt::format("  ... {} more (-n 0 shows all)", shown_rows - n));
  }
  if (w.rows.size() > shown_rows) {
    add_wrapped(
        out, o.width,
        fmt::format("  not shown: {} whose off-CPU time is within the sampling noise "
                    "(a 95% interval holding zero) or under 1% of the whole",
                    plural(w.rows.size() - shown_rows, "call and caller", "calls and callers")));
  }
  if (std::any_of(w.rows.begin(), w.rows.begin() + static_cast<std::ptrdiff_t>(n),
                  [](const WaitRow& row) { return row.own_code; })) {
    add_wrapped(out, o.width,
                "  off CPU in its own code, a thread waited for a CPU (more runnable threads "
                "than cores) or for a page");
  }
}

std::string waits_summary_line(const Report& r) {
  const WaitView& w = r.waits;
  if (w.processes == 0 || w.rows_standing_out() == 0) return "";
  const auto& top = w.rows[0];
  return fmt::format(
      "Off CPU: {} of {} of wall-clock time ({:.1f}%), the most in {}{}: {}; "
      "--by wait lists where threads waited",
      human_duration(w.off_cpu_ns()), human_duration(w.wall.time_ns),
      percent_of_wall(w, w.off_cpu_ns()), wait_call_name(r.symbols.table, top),
      top.has_caller ? " called from " + wait_caller_label(r, top, 60) : std::string(),
      human_duration(static_cast<uint64_t>(top.off_cpu_ns())));
}

}  // namespace cprof::report
