// The text report's GPU tables: shown only when the results hold GPU records, each
// table fitting `width` columns; `--top` limits the kernel and launch-site rows.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/render/gpu_render.h"
#include "report/render/text_rows.h"
#include "report/render/text_util.h"
#include "report/render/text_views.h"

namespace cprof::report {
namespace {

std::string ns(double v) { return human_duration(static_cast<uint64_t>(std::llround(v))); }

void summary(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& g = r.gpu;
  std::string engines;
  for (const auto& e : g.engines) engines += (engines.empty() ? "" : ", ") + e;
  std::string s = fmt::format("GPU: {} ({} timed, {} of kernel time)", plural(g.kernels, "kernel"),
                              with_commas(g.timed_kernels), human_duration(g.kernel_ns));
  s += fmt::format(", {} cop{} ({})", with_commas(g.copies), g.copies == 1 ? "y" : "ies",
                   human_bytes(g.copy_bytes));
  s += fmt::format(" on {}", plural(g.devices.size(), "device"));
  if (!engines.empty()) s += "; recorded by " + engines;
  add_line(out, o.width, s);
}

// The trace windows' note: each sentence from a new line, wrapped at word breaks.
void tracing(std::string& out, const Report& r, const RenderOptions& o) {
  const size_t width = std::max<size_t>(o.width, 40);
  for (const auto& text : gpu_tracing_note(r.gpu.tracing)) {
    std::string line;
    size_t from = 0;
    while (from < text.size()) {
      size_t to = text.find(' ', from);
      if (to == std::string::npos) to = text.size();
      const std::string_view word(text.data() + from, to - from);
      if (!line.empty() && line.size() + 1 + word.size() > width) {
        add_line(out, width, line);
        line.clear();
      }
      line += (line.empty() ? "" : " ") + std::string(word);
      from = to + 1;
    }
    if (!line.empty()) add_line(out, width, line);
  }
}

void kernels(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& rows = r.gpu.kernel_rows;
  if (rows.empty()) return;
  const size_t n = o.rows(rows.size());
  out += '\n';
  add_line(out, o.width, fmt::format("GPU kernels by total time (top {} of {})", n, with_commas(rows.size())));
  // Fixed columns take 70; the kernel name gets the rest.
  const size_t rest = o.width > 90 ? o.width - 70 : 20;
  add_line(out, o.width,
       fmt::format("{:>7} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9}  {}", "time%", "total", "calls",
                   "mean", "min", "max", "stddev", "kernel"));
  uint64_t untimed = 0;
  for (const auto& row : rows) untimed += row.untimed;
  for (size_t i = 0; i < n; ++i) {
    const auto& k = rows[i];
    const auto& d = k.duration_ns;
    add_line(out, o.width,
         fmt::format("{} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9}  {}",
                     percent_cell(r.gpu.fraction({k.calls, k.total_ns})), human_duration(k.total_ns),
                     with_commas(k.calls), ns(d.mean()), ns(d.min()), ns(d.max()), ns(d.stddev()),
                     compact_function_name(gpu_kernel_label(k.name), rest)));
  }
  if (untimed) {
    add_line(out, o.width,
         fmt::format("  ({} without device times: counted in calls, not in time)",
                     plural(untimed, "call")));
  }
}

void launch_sites(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& table = r.symbols.table;
  const bool by_line = o.by == RowKind::line;
  const auto& rows = by_line ? r.gpu.launch_lines : r.gpu.launch_functions;
  if (rows.empty()) return;
  const size_t n = o.rows(rows.size());
  out += '\n';
  add_line(out, o.width,
       fmt::format("GPU kernel time by launching {} (top {} of {}; self: innermost frame "
                   "outside the runtime)",
                   by_line ? "line" : "function", n, with_commas(rows.size())));
  constexpr size_t kFixed = 38;
  const size_t rest = o.width > kFixed + 20 ? o.width - kFixed : 20;
  const size_t where_width = std::min<size_t>(30, rest / 2);
  add_line(out, o.width,
       fmt::format("{:>7} {:>7} {:>9} {:>10}  {}", "self%", "total%", "self", "calls",
                   by_line ? "location (function)" : "function (location)"));
  for (size_t i = 0; i < n; ++i) {
    const auto& row = rows[i];
    const RowLabel label = row.id == GpuLaunchRow::kNoSite ? RowLabel{"[no launch stack]", ""}
                                                           : row_label(table, row.id, by_line);
    const std::string cells = row_cells(label, by_line, rest, where_width, 0);
    add_line(out, o.width,
         fmt::format("{} {} {:>9} {:>10}  {}", percent_cell(r.gpu.fraction(row.self)),
                     percent_cell(r.gpu.fraction(row.total)), human_duration(row.self.time_ns),
                     with_commas(row.self.calls), cells));
  }
}

void launch_tree(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& nodes = r.gpu.launch_tree;
  if (nodes.size() <= 1) return;
  const double min_fraction = o.top == 0 ? 0.0 : kTreeMinFraction;
  const size_t max_lines = o.top == 0 ? SIZE_MAX : o.top;
  out += '\n';
  add_line(out, o.width,
           fmt::format(
               "GPU kernel time by launch stack, top-down ({}{})", plural(nodes.size() - 1, "node"),
               o.top == 0 ? "" : fmt::format("; at most {} lines; under 0.5% hidden", max_lines)));
  add_line(out, o.width,
       fmt::format("{:>7} {:>7} {:>9} {:>10}  {}", "total%", "self%", "total", "calls", "function"));
  const size_t rest = o.width > 60 ? o.width - 38 : 20;
  const size_t hidden = walk_tree_lines(
      nodes, min_fraction, max_lines, [&](const auto& n) { return r.gpu.fraction(n.total); },
      [&](const auto& n, const std::string& indent) {
        const std::string name = gpu_site_function(r, {.function = n.function});
        add_line(out, o.width,
             fmt::format("{} {} {:>9} {:>10}  {}{}", percent_cell(r.gpu.fraction(n.total)),
                         percent_cell(r.gpu.fraction(n.self)), human_duration(n.total.time_ns),
                         with_commas(n.total.calls), indent,
                         fit_right(name, rest > indent.size() + 10 ? rest - indent.size() : 10)));
      });
  if (hidden) add_line(out, o.width, fmt::format("  ({} hidden)", plural(hidden, "subtree")));
}

void devices(std::string& out, const Report& r, const RenderOptions& o) {
  std::vector<const GpuDeviceRow*> rows;
  for (const auto& d : r.gpu.devices) {
    if (d.kernels) rows.push_back(&d);
  }
  if (rows.empty()) return;
  const auto windowed = std::count_if(rows.begin(), rows.end(),
                                      [](const GpuDeviceRow* d) { return d->busy.in_windows; });
  const bool mixed = windowed > 0 && windowed < static_cast<ptrdiff_t>(rows.size());
  out += '\n';
  if (windowed == 0) {
    add_line(out, o.width,
             "GPU devices (busy = union of kernel times over the span, first kernel start to "
             "last end)");
  } else if (!mixed) {
    add_line(out, o.width,
             "GPU devices (busy = union of kernel times inside the trace windows, span = their "
             "summed length)");
  } else {
    add_line(out, o.width,
             "GPU devices (busy = union of kernel times over the span, first kernel start to "
             "last end;");
    add_line(out, o.width, " *: inside the trace windows, span = their summed length)");
  }
  const auto label = [&](const GpuDeviceRow* d) {
    return (mixed && d->busy.in_windows ? "* " : "") + gpu_device_label(*d);
  };
  const size_t rest = o.width > 70 ? o.width - 54 : 16;
  add_line(out, o.width,
       fmt::format("{:>7} {:>9} {:>9} {:>10} {:>7} {:>7}  {}", "busy%", "busy", "span", "kernels",
                   "queues", "gaps", "device"));
  for (const auto* d : rows) {
    add_line(out, o.width,
         fmt::format("{} {:>9} {:>9} {:>10} {:>7} {:>7}  {}", percent_cell(d->busy.busy_fraction()),
                     human_duration(d->busy.busy_ns), human_duration(d->busy.span_ns()),
                     with_commas(d->kernels), d->queues, with_commas(d->busy.gaps),
                     fit_right(label(d), rest)));
  }
  out += '\n';
  if (windowed == 0) {
    add_line(out, o.width, "Idle gaps between kernels, by length (count)");
  } else if (!mixed) {
    add_line(out, o.width,
             "Idle gaps inside the trace windows, by length (count; gaps cut by a window's edge "
             "left out)");
  } else {
    add_line(out, o.width,
             "Idle gaps between kernels, by length (count; *: inside the trace windows, gaps cut "
             "by a window's edge left out)");
  }
  std::string head;
  static constexpr const char* kBuckets[kIdleGapBuckets] = {
      "<10us", "10-20us", "20-50us", "50-100us", ".1-1ms", "1-10ms", "10-100ms", ">=100ms"};
  for (const char* b : kBuckets) head += fmt::format("{:>9}", b);
  add_line(out, o.width, head + "  device");
  const size_t name_width = o.width > 9 * kIdleGapBuckets + 12 ? o.width - 9 * kIdleGapBuckets - 2 : 10;
  for (const auto* d : rows) {
    std::string s;
    for (const uint64_t c : d->busy.gap_counts) s += fmt::format("{:>9}", short_count(c));
    add_line(out, o.width, s + "  " + fit_right(label(d), name_width));
  }
}

void copies(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& rows = r.gpu.copy_rows;
  if (rows.empty()) return;
  out += '\n';
  add_line(out, o.width, "GPU copies by direction (GB/s over the timed copies)");
  add_line(out, o.width,
       fmt::format("{:<18} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9}", "direction", "copies", "bytes",
                   "time", "mean", "GB/s", "untimed"));
  for (const auto& c : rows) {
    add_line(out, o.width,
         fmt::format("{:<18} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9}", copy_direction_name(c.direction),
                     with_commas(c.count), human_bytes(c.bytes), human_duration(c.time_ns),
                     ns(c.duration_ns.mean()),
                     c.timed ? fmt::format("{:.2f}", c.gb_per_s()) : std::string("-"),
                     with_commas(c.count - c.timed)));
  }
}

}  // namespace

void text_gpu(std::string& out, const Report& r, const RenderOptions& o) {
  if (r.gpu.empty()) return;  // no section at all: nothing was recorded, nothing to say
  out += '\n';
  summary(out, r, o);
  tracing(out, r, o);
  kernels(out, r, o);
  launch_sites(out, r, o);
  if (o.view == View::tree) launch_tree(out, r, o);
  devices(out, r, o);
  copies(out, r, o);
}

}  // namespace cprof::report
