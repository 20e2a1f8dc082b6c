#pragma once
// A launcher's results directory that already holds an earlier run: so that two runs
// never merge silently in one report, the earlier one is set aside as DIR.old (perf keeps
// the previous run as perf.data.old the same way, replacing an older one), unless the
// user asked to add to it (--append) or the ranks of an MPI job share the directory.

#include <string>

namespace cprof::launch {

struct EarlierResults {
  std::string error;  // the run must not start (one line, in our words)
  std::string said;   // what was done, for stderr ("" when nothing was there)
};

// Before a run into `dir` (as given with -o). Looks only at the top level and one level
// down. Moves `dir` to `dir`.old when it holds results files of runs that ended and
// nothing else; adds to it, saying so, while another run still writes there; refuses
// when results files sit among other files (a source tree given as -o is never moved).
EarlierResults set_earlier_results_aside(const std::string& dir, bool append);

}  // namespace cprof::launch
