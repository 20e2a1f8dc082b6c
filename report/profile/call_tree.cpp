#include "report/profile/call_tree.h"

#include <algorithm>
#include <tuple>

#include "report/load/stack_table.h"

namespace cprof::report {

void stack_functions(const ProcessProfile& p, const std::vector<uint32_t>& frame_locations,
                     const SymbolTable& table, uint32_t stack, std::vector<FunctionId>& out) {
  const uint64_t base = p.stacks.offset(stack);
  const size_t depth = p.stacks.frames(stack).size();
  for (size_t i = depth; i-- > 0;) {
    const auto chain = table.frames_of(frame_locations[base + i]);
    for (size_t k = chain.size(); k-- > 0;) out.push_back(chain[k].function);
  }
}

CallTree build_call_tree(const std::vector<ProcessProfile>& processes,
                         const SymbolizedProfiles& symbols) {
  CallTree tree;
  tree.nodes.emplace_back();
  IndexMap child_of;  // (parent << 32 | function) -> node
  std::vector<FunctionId> path;
  std::vector<uint32_t> leaf;
  for (size_t p = 0; p < processes.size(); ++p) {
    const auto& process = processes[p];
    leaf.assign(process.stacks.size(), 0);
    for (uint32_t s = 0; s < process.stacks.size(); ++s) {
      path.clear();
      stack_functions(process, symbols.frame_locations[p], symbols.table, s, path);
      uint32_t node = 0;
      for (const FunctionId f : path) {
        bool inserted = false;
        const auto next = static_cast<uint32_t>(tree.nodes.size());
        const uint32_t child =
            child_of.find_or_insert((static_cast<uint64_t>(node) << 32) | f, next, inserted);
        if (inserted) {
          tree.nodes.push_back(
              {.parent = node, .function = f, .depth = tree.nodes[node].depth + 1});
          tree.nodes[node].children.push_back(child);
        }
        node = child;
      }
      leaf[s] = node;
    }
    for (const auto& c : process.counts) {
      auto& n = tree.nodes[leaf[c.stack]];
      n.self.samples += c.samples;
      n.self.time_ns += c.weight_ns;
    }
  }
  // Children come after their parents: one backward pass sums the totals.
  for (size_t i = tree.nodes.size(); i-- > 0;) {
    auto& n = tree.nodes[i];
    n.total.samples += n.self.samples;
    n.total.time_ns += n.self.time_ns;
    if (i == 0) break;
    auto& parent = tree.nodes[n.parent];
    parent.total.samples += n.total.samples;
    parent.total.time_ns += n.total.time_ns;
  }
  for (auto& n : tree.nodes) {
    std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
      const auto& x = tree.nodes[a];
      const auto& y = tree.nodes[b];
      return std::tie(y.total.time_ns, y.total.samples, x.function) <
             std::tie(x.total.time_ns, x.total.samples, y.function);
    });
  }
  return tree;
}

}  // namespace cprof::report
