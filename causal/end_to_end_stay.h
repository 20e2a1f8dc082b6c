#pragma once
// Automatic end to end (docs/causal.md, "End-to-end mode"): which location the next pair
// of runs stays on. Each run is one experiment, so a curve's minimum evidence costs 18
// runs of one location (6 with --fixed-speedup). Pairs that each drew their location from
// their baseline's samples spread SQLite's 20 runs over 10 locations and gave a curve to
// none. So a pair keeps a location that has runs but not yet the minimum evidence (and
// runs often enough to matter), and only when every location measured has it does the
// next pair draw a new one.
// Pure: records in, names out.

#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "format/records.h"

namespace cprof::causal {

// A location whose runs had it on the stack for less than this share of their time cannot
// change the program by more (the delay bound), which runs apart from each other do not
// resolve: the proportional draw lands on such code now and then (7-Zip's LzFindOpt.c:304,
// 1% of the samples), and staying would spend 18 runs on it.
inline constexpr double kTooLittleToStayShare = 0.02;

struct EndToEndChoice {
  // Locations short of the minimum evidence, the one to continue first: the most runs,
  // then the latest run. Empty: the next pair draws a location of its own.
  std::vector<std::string> to_continue;
  // Short of it too, but too little of the run to stay on, with that share.
  std::vector<std::pair<std::string, double>> too_little;
  // With the minimum evidence: a new draw leaves these out, and the too-little ones.
  std::vector<std::string> with_curve;
  std::map<std::string, size_t> runs;  // end-to-end runs per location
  std::string latest;                  // the location of the latest run
};

EndToEndChoice end_to_end_locations_to_continue(std::span<const format::ExperimentRecord> records);

}  // namespace cprof::causal
