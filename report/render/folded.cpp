// `--format folded`: one line per distinct call path, "outer;inner;innermost COUNT", the
// input of flamegraph.pl (and of speedscope, inferno, ...). COUNT is the path's self time
// in sampling periods, which is its sample count where each sample stands for one period;
// paths are from the call tree, so recursion and inline frames read as they do there.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/render/render.h"

namespace cprof::report {
namespace {

// flamegraph.pl splits frames at ';' and the count at the last space; keep names on one
// line and free of ';'.
std::string frame_name(const std::string& name) {
  std::string s = name;
  for (auto& c : s) {
    if (c == ';') c = ',';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

// The unit of COUNT: the shortest sampling period of the processes (0: none has one, as
// text inputs may not; COUNT is then samples).
uint64_t count_unit_ns(const Report& r) {
  uint64_t unit = 0;
  for (const auto& p : r.processes) {
    if (p.has_process_record && p.process.period_ns > 0)
      unit = unit == 0 ? p.process.period_ns : std::min(unit, p.process.period_ns);
  }
  return unit;
}

// A sample may stand for several periods (a whole sleep under --clock wall is one sample),
// and flamegraph.pl sizes frames by COUNT: counting samples would shrink a sleep to one
// period. Rounded, and at least 1, so that no sampled path disappears.
uint64_t folded_count(const Measure& self, uint64_t unit_ns) {
  if (unit_ns == 0) return self.samples;
  const double periods = static_cast<double>(self.time_ns) / static_cast<double>(unit_ns);
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(periods)));
}

}  // namespace

std::string render_folded(const Report& r) {
  std::string out;
  if (!r.tree) return out;
  const uint64_t unit_ns = count_unit_ns(r);
  const auto& nodes = r.tree->nodes;
  std::vector<std::string> names(r.symbols.table.functions.size());
  for (size_t f = 0; f < names.size(); ++f)
    names[f] = frame_name(r.symbols.table.functions[f].name);
  // Depth-first with the path so far; a node with self samples is one line.
  std::string path;
  std::vector<std::pair<uint32_t, size_t>> todo;  // node, path length before it
  for (auto it = nodes[0].children.rbegin(); it != nodes[0].children.rend(); ++it)
    todo.push_back({*it, 0});
  while (!todo.empty()) {
    const auto [id, before] = todo.back();
    todo.pop_back();
    path.resize(before);
    if (before > 0) path += ';';
    path += names[nodes[id].function];
    if (nodes[id].self.samples > 0)
      fmt::format_to(std::back_inserter(out), "{} {}\n", path, folded_count(nodes[id].self, unit_ns));
    const size_t length = path.size();
    for (auto it = nodes[id].children.rbegin(); it != nodes[id].children.rend(); ++it) {
      todo.push_back({*it, length});
    }
  }
  return out;
}

}  // namespace cprof::report
