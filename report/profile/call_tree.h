#pragma once
// The top-down call tree: every path of functions from the outermost frame (main, a
// thread's start routine) to the innermost, inline frames included, merged over all
// threads, processes and runs. A node's self is the samples whose stack ends at it; its
// total is its self plus its children's totals.
//
// Built only when a view or format asks for it (`--view tree`, html, folded): the cost is
// one walk over every frame of every distinct stack, on top of the flat profile.

#include <cstdint>
#include <vector>

#include "report/load/process_profile.h"
#include "report/profile/flat_profile.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct CallTreeNode {
  uint32_t parent = 0;  // node 0 is the root (no function); its parent is itself
  FunctionId function = 0;
  uint32_t depth = 0;  // root 0, outermost frames 1
  Measure self;
  Measure total;
  std::vector<uint32_t> children;  // sorted by total time, then samples, then function id
};

struct CallTree {
  std::vector<CallTreeNode> nodes;  // parents before children; nodes[0] is the root
};

CallTree build_call_tree(const std::vector<ProcessProfile>& processes,
                         const SymbolizedProfiles& symbols);

// The functions of one stack of process p, outermost first, inline frames expanded
// (the inlined callee after the function it was inlined into). Appends to `out`.
void stack_functions(const ProcessProfile& p, const std::vector<uint32_t>& frame_locations,
                     const SymbolTable& table, uint32_t stack, std::vector<FunctionId>& out);

}  // namespace cprof::report
