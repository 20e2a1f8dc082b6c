#pragma once
// Automatic end to end (docs/causal.md, "End-to-end mode"): which location the next pair
// of runs stays on. Each run is one experiment, so a curve's minimum evidence costs 18
// runs of one location (6 with --fixed-speedup). Pairs that each drew their location from
// their baseline's samples spread SQLite's 20 runs over 10 locations and gave a curve to
// none. So a pair keeps a location that has runs but not yet the minimum evidence, and
// only when every location measured has it does the next pair draw a new one.
// Pure: records in, names out.

#include <span>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::causal {

// The end-to-end locations among `records` whose runs fall short of the minimum evidence,
// the one to continue first: the most runs, then the latest run. Empty: the next pair
// draws a location of its own.
std::vector<std::string> end_to_end_locations_to_continue(
    std::span<const format::ExperimentRecord> records);

}  // namespace cprof::causal
