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

std::string human_bytes(uint64_t bytes) {
  const auto b = static_cast<double>(bytes);
  if (bytes < 1000) return fmt::format("{} B", bytes);
  if (b < 1e6) return fmt::format("{:.1f} kB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

}  // namespace cprof::report
