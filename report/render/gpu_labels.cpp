// Labels the GPU renderers share.
#include <fmt/format.h>

#include "report/render/gpu_render.h"
#include "report/render/text_util.h"

namespace cprof::report {

std::string gpu_kernel_label(const std::string& name) {
  return name.empty() ? "[unknown kernel]" : name;
}

std::string gpu_site_function(const Report& r, const GpuSite& site) {
  if (site.none()) return "[no launch stack]";
  return r.symbols.table.functions[site.function].name;
}

std::string gpu_site_location(const Report& r, const GpuSite& site) {
  if (site.none()) return "";
  const auto& l = r.symbols.table.lines[site.line];
  return l.file.empty() ? "" : fmt::format("{}:{}", base_name(l.file), l.line);
}

std::string gpu_device_label(const GpuDeviceRow& d) {
  std::string s = d.name;
  if (!d.hostname.empty()) s += " on " + d.hostname;
  if (!d.run.empty()) s += " (" + d.run + ")";
  return s;
}

namespace {

// "10%", "2.5%"; "5-10%" when processes disagree.
std::string duty_text(double low, double high) {
  return low == high ? fmt::format("{:.3g}%", 100 * low)
                     : fmt::format("{:.3g}-{:.3g}%", 100 * low, 100 * high);
}

std::string period_text(uint64_t low, uint64_t high) {
  return low == high ? human_duration(low)
                     : fmt::format("{} to {}", human_duration(low), human_duration(high));
}

}  // namespace

std::vector<std::string> gpu_tracing_note(const GpuTracing& t) {
  if (!t.windowed()) return {};
  std::vector<std::string> out;
  const std::string who =
      t.windowed_processes == t.processes
          ? "GPU activity"
          : fmt::format("GPU activity of {} of {} processes", t.windowed_processes, t.processes);
  out.push_back(fmt::format("{} traced in windows: {} of each {} (traced {} of {}, {:.1f}%).", who,
                            duty_text(t.duty_min, t.duty_max),
                            period_text(t.period_min_ns, t.period_max_ns),
                            human_duration(t.traced_ns), human_duration(t.span_ns),
                            100 * t.traced_fraction()));
  out.push_back(
      t.traced_ns == 0
          ? "Calls and times below are those of the windows, which add up to no time: no "
            "estimate for the whole run."
          : fmt::format("Calls and times below are those of the windows (x{:.1f} estimates the "
                        "whole run{}); busy and idle gaps are measured inside them.",
                        t.scale(),
                        t.windowed_processes == t.processes ? "" : " of those processes"));
  if (t.inferred_windows) {
    out.push_back(fmt::format(
        "{} had no record (a process ended inside it): taken from the launches after the last "
        "recorded window.",
        t.inferred_windows == 1 ? std::string("1 window")
                                : fmt::format("{} windows", t.inferred_windows)));
  }
  if (t.outside) {
    out.push_back(fmt::format(
        "{} launched outside every window: counted in the tables, not in busy time.",
        t.outside == 1 ? std::string("1 kernel or copy was")
                       : fmt::format("{} kernels and copies were", with_commas(t.outside))));
  }
  return out;
}

std::string human_bytes(uint64_t bytes) {
  const auto b = static_cast<double>(bytes);
  if (bytes < 1000) return fmt::format("{} B", bytes);
  if (b < 1e6) return fmt::format("{:.1f} kB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

}  // namespace cprof::report
