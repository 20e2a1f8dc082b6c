// The HTML report's GPU section: kernels, kernel time by launching function and line,
// devices with their idle-gap histograms, copies. Tables have ids (gpu-kernels,
// gpu-launch-functions, gpu-launch-lines, gpu-devices, gpu-copies); every name is
// escaped. Nothing at all without GPU records.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/render/gpu_render.h"
#include "report/render/html_escape.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

constexpr size_t kMaxRows = 500;  // per table when --top is 0, as the other tables

size_t shown(size_t rows, size_t top) { return std::min(rows, top == 0 ? kMaxRows : top); }

std::string pct(double f) { return fmt::format("{:.2f}%", 100 * f); }

std::string ns(double v) { return human_duration(static_cast<uint64_t>(std::llround(v))); }

std::string name_cell(const std::string& s) {
  return "<td class=\"name\">" + html_escape(s) + "</td>";
}


void kernels(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& g = r.gpu;
  if (g.kernel_rows.empty()) return;
  out += "<h2>GPU kernels by total time</h2>\n";
  html_table_head(out,
                  {"time%", "total", "calls", "untimed", "mean", "min", "max", "stddev", "<kernel",
                   "<top launch site"},
                  "gpu-kernels");
  for (size_t i = 0; i < shown(g.kernel_rows.size(), o.top); ++i) {
    const auto& k = g.kernel_rows[i];
    const auto& d = k.duration_ns;
    std::string site;
    if (!k.sites.empty()) {
      const auto& s = k.sites.front();
      site = gpu_site_function(r, s.site);
      if (const auto where = gpu_site_location(r, s.site); !where.empty()) site += " (" + where + ")";
      if (k.sites.size() > 1) site += fmt::format(" and {} more", k.sites.size() - 1);
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td>{}{}</tr>\n",
        pct(g.fraction({k.calls, k.total_ns})), human_duration(k.total_ns), with_commas(k.calls),
        with_commas(k.untimed), ns(d.mean()), ns(d.min()), ns(d.max()), ns(d.stddev()),
        name_cell(gpu_kernel_label(k.name)), name_cell(site));
  }
  out += "</tbody></table>\n";
}

void launches(std::string& out, const Report& r, const RenderOptions& o, bool by_line) {
  const auto& g = r.gpu;
  const auto& table = r.symbols.table;
  const auto& rows = by_line ? g.launch_lines : g.launch_functions;
  if (rows.empty()) return;
  out += fmt::format(
      "<h2>GPU kernel time by launching {}</h2>\n<p class=\"note\">self: kernels launched from "
      "exactly here (the innermost frame outside the GPU runtime); total: kernels with it on "
      "their launch stack</p>\n",
      by_line ? "line" : "function");
  html_table_head(out,
                  {"self%", "total%", "self", "total", "calls", by_line ? "<location" : "<function",
                   by_line ? "<function" : "<location"},
                  by_line ? "gpu-launch-lines" : "gpu-launch-functions");
  for (size_t i = 0; i < shown(rows.size(), o.top); ++i) {
    const auto& row = rows[i];
    std::string a = "[no launch stack]", b;
    if (row.id != GpuLaunchRow::kNoSite && by_line) {
      a = table.line_label(row.id);
      b = table.functions[table.lines[row.id].function].name;
    } else if (row.id != GpuLaunchRow::kNoSite) {
      const auto& f = table.functions[row.id];
      a = f.name;
      if (!f.file.empty()) b = fmt::format("{}:{}", f.file, f.line);
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}{}</tr>\n",
        pct(g.fraction(row.self)), pct(g.fraction(row.total)), human_duration(row.self.time_ns),
        human_duration(row.total.time_ns), with_commas(row.self.calls), name_cell(a), name_cell(b));
  }
  out += "</tbody></table>\n";
}

void devices(std::string& out, const Report& r) {
  bool any = false, windowed = false;
  for (const auto& d : r.gpu.devices) {
    any |= d.kernels > 0;
    windowed |= d.kernels > 0 && d.busy.in_windows;
  }
  if (!any) return;
  out +=
      windowed
          ? "<h2>GPU devices</h2>\n<p class=\"note\">busy: the union of kernel times inside the "
            "trace windows, span: the windows' summed length (a device traced throughout: from the "
            "first kernel's start to the last one's end); idle gaps between kernels inside one "
            "window by length (gaps cut by a window's edge left out)</p>\n"
          : "<h2>GPU devices</h2>\n<p class=\"note\">busy: the union of kernel times over the span "
            "from the first kernel's start to the last one's end; idle gaps between kernels by "
            "length</p>\n";
  html_table_head(out,
                  {"<device", "busy%", "busy", "span", "kernels", "queues", "&lt;10us", "10-20us",
                   "20-50us", "50-100us", "0.1-1ms", "1-10ms", "10-100ms", "&ge;100ms"},
                  "gpu-devices");
  for (const auto& d : r.gpu.devices) {
    if (!d.kernels) continue;
    out += fmt::format("<tr>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                       name_cell(gpu_device_label(d)), pct(d.busy.busy_fraction()),
                       human_duration(d.busy.busy_ns), human_duration(d.busy.span_ns()),
                       with_commas(d.kernels), d.queues);
    for (const uint64_t c : d.busy.gap_counts) out += fmt::format("<td>{}</td>", with_commas(c));
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
}

void copies(std::string& out, const Report& r) {
  if (r.gpu.copy_rows.empty()) return;
  out += "<h2>GPU copies by direction</h2>\n";
  html_table_head(out, {"<direction", "copies", "bytes", "time", "mean", "GB/s", "untimed"},
                  "gpu-copies");
  for (const auto& c : r.gpu.copy_rows) {
    out += fmt::format(
        "<tr>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        name_cell(copy_direction_name(c.direction)), with_commas(c.count), human_bytes(c.bytes),
        human_duration(c.time_ns), ns(c.duration_ns.mean()),
        c.timed ? fmt::format("{:.2f}", c.gb_per_s()) : "-", with_commas(c.count - c.timed));
  }
  out += "</tbody></table>\n";
}

}  // namespace

void html_gpu(std::string& out, const Report& r, const RenderOptions& o) {
  const auto& g = r.gpu;
  if (g.empty()) return;
  out += "<section id=\"gpu\">\n";
  std::string engines;
  for (const auto& e : g.engines) engines += (engines.empty() ? "" : ", ") + e;
  out +=
      fmt::format("<p class=\"note\">GPU: {} ({} timed, {} of kernel time), {} ({}) on {}{}</p>\n",
                  plural(g.kernels, "kernel"), with_commas(g.timed_kernels),
                  human_duration(g.kernel_ns), plural(g.copies, "copy", "copies"),
                  human_bytes(g.copy_bytes), plural(g.devices.size(), "device"),
                  engines.empty() ? "" : "; recorded by " + html_escape(engines));
  if (const auto note = gpu_tracing_note(g.tracing); !note.empty()) {
    std::string text;
    for (const auto& sentence : note) text += (text.empty() ? "" : " ") + sentence;
    out += "<p class=\"note\" id=\"gpu-tracing\"><strong>" + html_escape(text) + "</strong></p>\n";
  }
  kernels(out, r, o);
  launches(out, r, o, false);
  launches(out, r, o, true);
  devices(out, r);
  copies(out, r);
  out += "</section>\n";
}

}  // namespace cprof::report
