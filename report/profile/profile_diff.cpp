#include "report/profile/profile_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "report/report.h"

namespace cprof::report {
namespace {

// Name and location of a flat row, as the text table shows them.
std::pair<std::string, std::string> row_key(const Report& r, const FlatRow& row, bool by_line) {
  const auto& t = r.symbols.table;
  if (by_line) return {t.line_label(row.id), ""};
  const auto& f = t.functions[row.id];
  if (f.file.empty()) return {f.name, ""};
  const auto slash = f.file.rfind('/');
  return {
      f.name,
      fmt::format("{}:{}", slash == std::string::npos ? f.file : f.file.substr(slash + 1), f.line)};
}

}  // namespace

std::string run_share(const Measure& part, const Measure& all) {
  if (all.time_ns == 0) return "-";
  return fmt::format("{:.2f}%",
                     100.0 * static_cast<double>(part.time_ns) / static_cast<double>(all.time_ns));
}

bool change_within_noise(uint64_t base_samples, uint64_t now_samples) {
  const double d = std::fabs(static_cast<double>(now_samples) - static_cast<double>(base_samples));
  return d < 2.0 * std::sqrt(static_cast<double>(base_samples + now_samples));
}

ProfileDiff diff_profiles(const Report& base, const Report& now, bool by_line) {
  ProfileDiff d;
  d.base_all = base.flat.all;
  d.now_all = now.flat.all;
  std::map<std::string, DiffRow> rows;
  const auto add = [&](const Report& r, bool is_base) {
    for (const auto& row : by_line ? r.flat.lines : r.flat.functions) {
      auto [name, location] = row_key(r, row, by_line);
      auto& out = rows[name];
      out.name = name;
      if (out.location.empty()) out.location = location;
      Measure& self = is_base ? out.base_self : out.now_self;
      Measure& total = is_base ? out.base_total : out.now_total;
      self.samples += row.self.samples;
      self.time_ns += row.self.time_ns;
      total.samples += row.total.samples;
      total.time_ns += row.total.time_ns;
    }
  };
  add(base, true);
  add(now, false);
  for (auto& [name, row] : rows) d.rows.push_back(std::move(row));
  std::stable_sort(d.rows.begin(), d.rows.end(), [](const DiffRow& a, const DiffRow& b) {
    return std::llabs(a.change_ns()) > std::llabs(b.change_ns());
  });
  return d;
}

}  // namespace cprof::report
