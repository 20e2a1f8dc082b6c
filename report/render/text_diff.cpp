// causal-report --diff BASE DIR in text (render.h, docs/report.md "Comparing two runs").
#include <fmt/format.h>

#include <cmath>

#include "report/profile/profile_diff.h"
#include "report/render/render.h"
#include "report/render/text_util.h"

namespace cprof::report {

std::string render_text_diff(const Report& base, const Report& now, const std::string& base_name,
                             const std::string& now_name, const RenderOptions& o) {
  const bool by_line = o.by == RowKind::line;
  const ProfileDiff d = diff_profiles(base, now, by_line);
  std::string out;
  add_wrapped(out, o.width,
              fmt::format("causal-report: comparing {} (new) with {} (base)", now_name, base_name));
  const int64_t all_change =
      static_cast<int64_t>(d.now_all.time_ns) - static_cast<int64_t>(d.base_all.time_ns);
  add_wrapped(
      out, o.width,
      fmt::format("sampled: {} ({} samples) against {} ({} samples): {}{}",
                  human_duration(d.now_all.time_ns), with_commas(d.now_all.samples),
                  human_duration(d.base_all.time_ns), with_commas(d.base_all.samples),
                  signed_duration(all_change),
                  d.base_all.time_ns == 0
                      ? ""
                      : fmt::format(" ({:+.1f}%)", 100.0 * static_cast<double>(all_change) /
                                                       static_cast<double>(d.base_all.time_ns))));
  out += '\n';
  size_t changed = 0;
  for (const auto& row : d.rows) changed += row.change_ns() != 0 ? 1 : 0;
  const size_t n = o.rows(changed);
  const char* what = by_line ? "Lines" : "Functions";
  add_line(out, o.width,
           fmt::format("{} whose self time changed most (top {} of {} that changed)", what, n,
                       with_commas(changed)));
  add_line(out, o.width,
           fmt::format("{:>9} {:>9} {:>10} {:>7} {:>7}   {}", "base", "new", "change", "base%",
                       "new%", by_line ? "line" : "function (location)"));
  size_t noisy = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& row = d.rows[i];
    const bool noise = change_within_noise(row.base_self.samples, row.now_self.samples);
    noisy += noise ? 1 : 0;
    // As the flat table names them: a compact name, then where it is defined.
    std::string label = by_line ? row.name : compact_function_name(row.name, 44);
    if (!row.location.empty()) label = fit_left(label, 44) + "  " + row.location;
    add_line(out, o.width,
             fmt::format("{:>9} {:>9} {:>10}{} {:>7} {:>7}   {}",
                         row.base_self.samples == 0 && row.base_self.time_ns == 0
                             ? "-"
                             : human_duration(row.base_self.time_ns),
                         row.now_self.samples == 0 && row.now_self.time_ns == 0
                             ? "-"
                             : human_duration(row.now_self.time_ns),
                         signed_duration(row.change_ns()), noise ? "~" : " ",
                         run_share(row.base_self, d.base_all), run_share(row.now_self, d.now_all),
                         label));
  }
  if (n < changed) {
    add_line(out, o.width,
             fmt::format("  ... {} more that changed less", with_commas(changed - n)));
  }
  out += '\n';
  add_wrapped(out, o.width,
              "base and new: self time in each run (the line or function innermost); shares are "
              "of each run's own sampled time; '-': not sampled in that run" +
                  std::string(noisy > 0 ? "; '~': a change within sampling noise (the sample "
                                          "counts differ by less than twice the square root of "
                                          "their sum): it may be chance"
                                        : ""));
  return out;
}

}  // namespace cprof::report
