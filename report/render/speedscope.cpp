// `--format speedscope`: speedscope's file format
// (https://www.speedscope.app/file-format-schema.json): shared frames (one per function)
// and one "sampled" profile per thread, each sample a stack of frame indices, outermost
// first, weighted by its time in nanoseconds (by 1 when no sample carries a weight).
// Samples with the same stack on one thread are merged into one. CPU time no sample
// covers is one more profile, at the end, a frame per group (cpu_account_note.h). The file cannot choose
// the view speedscope opens in (always "Time Order", which draws samples in file order),
// so the samples are written in left-heavy order: heaviest callee first, depth first. The
// view it opens then shows the left-heavy flame graph, not stacks in an arbitrary order.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "report/profile/call_tree.h"
#include "report/render/cpu_account_note.h"
#include "report/render/json_writer.h"
#include "report/render/render.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

// The order in which to write `stacks` (each outermost first, of weight weights[i]) so
// that, drawn one after the other, they form the left-heavy flame graph: a prefix tree
// walked depth first, heavier children first (ties: by function), a node's own samples
// after its children's, as the left-heavy view draws self time right of the callees.
std::vector<uint32_t> left_heavy_order(const std::vector<std::vector<FunctionId>>& stacks,
                                       const std::vector<uint64_t>& weights) {
  struct Node {
    FunctionId function = 0;
    uint64_t total = 0;
    std::vector<uint32_t> children;  // node indices
    std::vector<uint32_t> ends;      // indices of the stacks that end here
  };
  std::vector<Node> nodes(1);  // nodes[0]: the root, above every outermost frame
  std::unordered_map<uint64_t, uint32_t> child_of;  // (parent << 32 | function) -> node
  for (uint32_t i = 0; i < stacks.size(); ++i) {
    uint32_t at = 0;
    nodes[0].total += weights[i];
    for (const FunctionId f : stacks[i]) {
      const auto [it, added] =
          child_of.try_emplace(uint64_t{at} << 32 | f, static_cast<uint32_t>(nodes.size()));
      if (added) {
        nodes[at].children.push_back(it->second);
        nodes.push_back({.function = f});
      }
      at = it->second;
      nodes[at].total += weights[i];
    }
    nodes[at].ends.push_back(i);
  }
  std::vector<uint32_t> order;
  order.reserve(stacks.size());
  // Depth first without recursion (stacks can be 1000 frames deep): a node is pushed to
  // be expanded, then pushed again marked "done" to emit its own samples after its subtree.
  std::vector<std::pair<uint32_t, bool>> todo{{0, false}};
  while (!todo.empty()) {
    const auto [n, done] = todo.back();
    todo.pop_back();
    if (done) {
      order.insert(order.end(), nodes[n].ends.begin(), nodes[n].ends.end());
      continue;
    }
    todo.emplace_back(n, true);
    auto children = nodes[n].children;
    std::sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
      return nodes[a].total != nodes[b].total ? nodes[a].total > nodes[b].total
                                              : nodes[a].function < nodes[b].function;
    });
    for (auto c = children.rbegin(); c != children.rend(); ++c) todo.emplace_back(*c, false);
  }
  return order;
}

}  // namespace

std::string render_speedscope(const Report& r) {
  std::string out;
  JsonWriter j(out);
  const auto& table = r.symbols.table;
  bool weighted = r.flat.all.time_ns > 0;
  j.begin_object()
      .field("$schema", "https://www.speedscope.app/file-format-schema.json")
      .field("name", fmt::format("causal-report: {}, {}{}",
                                 plural(r.processes.size(), "process", "processes"),
                                 plural(r.threads(), "thread"),
                                 r.clock_summary().empty() ? "" : ", " + r.clock_summary()))
      .field("exporter", "causal-report")
      .field("activeProfileIndex", 0);
  // CPU time no sample covers: a frame per group after the functions', and a profile of
  // its own at the end (speedscope opens the first, the hottest thread).
  const auto unsampled = weighted ? unsampled_rows(r) : std::vector<UnsampledRow>{};
  j.key("shared").begin_object().key("frames").begin_array();
  for (const auto& f : table.functions) {
    j.begin_object(true).field("name", f.name);
    if (!f.file.empty()) j.field("file", f.file).field("line", f.line);
    j.end_object();
  }
  for (const auto& row : unsampled) j.begin_object(true).field("name", row.label).end_object();
  j.end_array().end_object();

  j.key("profiles").begin_array();
  for (const auto& row : r.breakdown.threads) {  // threads by time, hottest first
    const auto& p = r.processes[row.process];
    const auto& locations = r.symbols.frame_locations[row.process];
    const auto& t = p.threads[row.thread];
    j.begin_object()
        .field("type", "sampled")
        .field("name",
               fmt::format("{} {}{}{}", p.label(), t.tid, t.name.empty() ? "" : " ", t.name))
        .field("unit", weighted ? "nanoseconds" : "none")
        .field("startValue", 0)
        .field("endValue", weighted ? row.time.time_ns : row.time.samples);
    std::vector<std::vector<FunctionId>> stacks;
    std::vector<uint64_t> weights;
    for (const auto& c : p.counts) {
      if (c.thread != row.thread) continue;
      stacks.emplace_back();
      stack_functions(p, locations, table, c.stack, stacks.back());
      weights.push_back(weighted ? c.weight_ns : c.samples);
    }
    const std::vector<uint32_t> order = left_heavy_order(stacks, weights);
    j.key("samples").begin_array();
    for (const uint32_t i : order) {
      j.begin_array(true);
      for (const FunctionId f : stacks[i]) j.value(f);
      j.end_array();
    }
    j.end_array();
    j.key("weights").begin_array(true);
    for (const uint32_t i : order) j.value(weights[i]);
    j.end_array();
    j.end_object();
  }
  if (!unsampled.empty()) {
    uint64_t total = 0;
    for (const auto& row : unsampled) total += row.ns;
    j.begin_object()
        .field("type", "sampled")
        .field("name", "[unsampled CPU time: processes and threads without a sample]")
        .field("unit", "nanoseconds")
        .field("startValue", 0)
        .field("endValue", total);
    j.key("samples").begin_array();
    for (size_t k = 0; k < unsampled.size(); ++k) {
      j.begin_array(true).value(static_cast<uint64_t>(table.functions.size() + k)).end_array();
    }
    j.end_array();
    j.key("weights").begin_array(true);
    for (const auto& row : unsampled) j.value(row.ns);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return out;
}

}  // namespace cprof::report
