#pragma once
// Between the runs of an automatic causal-run: which locations the next run experiments
// on, from the experiments the runs so far wrote, and the line that says so. With
// progress points the focus narrows (causal/experiment_focus.h); end to end a pair stays
// on a location until its runs meet the minimum evidence (causal/end_to_end_stay.h).

#include <cstdint>
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

// While a run goes on: "12 experiments so far on 5 locations, 1 with the minimum evidence (1 with
// an effect)", from the experiments `dir`'s files not in `before` hold so far (a file
// that cannot be read yet, just created, is left out); "" when they hold none yet.
std::string evidence_so_far(const std::string& dir, const std::set<std::string>& before);

struct EndToEndStep {
  std::string location;                 // the one the next pair stays on; "": it draws
  std::vector<LocationLine> locations;  // that location's line, for the locations file
  // When it draws: the locations to draw from, without those measured already (with their
  // curve, or too little of the run); empty: every location.
  std::vector<LocationLine> draw_from;
  std::string said;                     // a line for stderr when the choice changed, or ""
};

// Before a pair of end-to-end runs: every end-to-end run in `dir` counts, an earlier
// causal-run's too (--append), so that adding runs continues the location they were for.
// `all` is every location the automatic run may choose, `kept` the location the last pair
// stayed on ("" for none), `levels` how many speedups the sped-up runs go through; under
// MPI only `rank`'s files count (-1: every file); `first`: the causal-run's first pair.
EndToEndStep next_end_to_end_pair(const std::string& dir, const std::vector<LocationLine>& all,
                                  const std::string& kept, size_t levels, int64_t rank,
                                  bool first);

}  // namespace cprof::causal
