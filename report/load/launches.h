#pragma once
// How many separate launches the results of one directory (or one run subdirectory)
// come from. Launchers set an earlier run aside (sampler/launcher/earlier_results.h), but
// --append, runs that wrote at the same time, or files copied together still merge:
// the report says so rather than show one profile of several programs without a word.

#include <string>
#include <vector>

#include "report/load/process_profile.h"

namespace cprof::report {

// Processes whose parent (on the same host) is not among them are the roots of their
// launches; roots with one parent (a launcher's child, every run of `causal-run -n`) are
// one launch, and the roots that are MPI ranks one job. Counted per run subdirectory.
// "" when every directory holds one launch, else one warning line naming the count.
std::string separate_launches_warning(const std::vector<ProcessProfile>& processes);

}  // namespace cprof::report
