// `--format folded`: one line per distinct call path, "outer;inner;innermost COUNT", the
// input of flamegraph.pl (and of speedscope, inferno, ...). COUNT is samples; paths are
// from the call tree, so recursion and inline frames read as they do there.
#include <fmt/format.h>

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

}  // namespace

std::string render_folded(const Report& r) {
  std::string out;
  if (!r.tree) return out;
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
      fmt::format_to(std::back_inserter(out), "{} {}\n", path, nodes[id].self.samples);
    const size_t length = path.size();
    for (auto it = nodes[id].children.rbegin(); it != nodes[id].children.rend(); ++it) {
      todo.push_back({*it, length});
    }
  }
  return out;
}

}  // namespace cprof::report
