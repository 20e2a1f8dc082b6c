// causal-report --diff BASE DIR --format html (render.h, docs/report.md "Comparing two
// runs"): the text view's table of what changed most, and a differential flame graph.
#include <fmt/format.h>

#include "report/profile/profile_diff.h"
#include "report/render/html_escape.h"
#include "report/render/html_flame.h"
#include "report/render/render.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

std::string time_cell(const Measure& m) {
  return m.samples == 0 && m.time_ns == 0 ? "-" : human_duration(m.time_ns);
}

}  // namespace

std::string render_html_diff(const Report& base, const Report& now, const std::string& base_name,
                             const std::string& now_name, const RenderOptions& o) {
  const bool by_line = o.by == RowKind::line;
  const ProfileDiff d = diff_profiles(base, now, by_line);
  std::string out;
  html_page_head(out, "causal-report --diff");
  const int64_t all_change =
      static_cast<int64_t>(d.now_all.time_ns) - static_cast<int64_t>(d.base_all.time_ns);
  out += fmt::format(
      "<h1>causal-report --diff</h1>\n<p id=\"diff-summary\">comparing {} (new) with {} "
      "(base): sampled {} ({} samples) against {} ({} samples): {}</p>\n",
      html_escape(now_name), html_escape(base_name), human_duration(d.now_all.time_ns),
      with_commas(d.now_all.samples), human_duration(d.base_all.time_ns),
      with_commas(d.base_all.samples), signed_duration(all_change));
  size_t changed = 0;
  for (const auto& row : d.rows) changed += row.change_ns() != 0 ? 1 : 0;
  const size_t n = std::min<size_t>(o.rows(changed), 500);
  out += fmt::format("<h2>{} whose self time changed most</h2>\n", by_line ? "Lines" : "Functions");
  html_table_head(
      out, {"base", "new", "change", "base %", "new %", by_line ? "<line" : "<function"}, "diff");
  for (size_t i = 0; i < n; ++i) {
    const auto& row = d.rows[i];
    const bool noise = change_within_noise(row.base_self.samples, row.now_self.samples);
    std::string name = html_escape(row.name);
    if (!row.location.empty())
      name += " <span class=\"note\">" + html_escape(row.location) + "</span>";
    out += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td "
        "class=\"name\">{}</td></tr>\n",
        noise ? " class=\"noise\"" : "", time_cell(row.base_self), time_cell(row.now_self),
        signed_duration(row.change_ns()), noise ? " ~" : "", run_share(row.base_self, d.base_all),
        run_share(row.now_self, d.now_all), name);
  }
  if (n < changed) {
    out += fmt::format(
        "<tr class=\"more\"><td class=\"name\" colspan=\"6\">… {} more that changed "
        "less</td></tr>\n",
        with_commas(changed - n));
  }
  out += "</tbody></table>\n";
  out +=
      "<p class=\"note\">base and new: self time in each run; shares are of each run's own "
      "sampled time; '-': not sampled in that run; '~': a change within sampling noise (the "
      "sample counts differ by less than twice the square root of their sum): it may be "
      "chance</p>\n";
  out += "<h2>Differential flame graph</h2>\n";
  if (now.tree && now.tree->nodes.size() > 1) {
    html_flame_graph(out, now, kFlameMaxNodes, &base);
  } else {
    out += "<p class=\"note\">(no samples with a stack in the new run)</p>\n";
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace cprof::report
