#pragma once
// Between the runs of an automatic causal-run with progress points: which locations the
// next run experiments on (causal/experiment_focus.h), from the experiments the runs so
// far wrote, and the line that says so.

#include <set>
#include <string>
#include <vector>

#include "causal/runtime/settings.h"

namespace cprof::causal {

struct FocusStep {
  std::vector<LocationLine> locations;  // the next run's; empty: keep the automatic draw
  std::string said;                     // one line for stderr: what the runs have found
};

// `dir`'s results files that are not in `before` hold the runs so far (`done` of
// `runs`); `all` is every location the automatic run may choose; `focus` is the last
// run's focus (empty after the screening run) and becomes the next one's. After the
// last run (done == runs) only says what was found.
FocusStep next_focus(const std::string& dir, const std::set<std::string>& before,
                     const std::vector<LocationLine>& all, size_t keep,
                     std::vector<std::string>& focus, unsigned done, unsigned runs);

}  // namespace cprof::causal
