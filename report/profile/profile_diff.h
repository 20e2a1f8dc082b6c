#pragma once
// Two profiles compared (causal-report --diff BASE DIR): each function (or line) matched
// by its name (or file:line) across the runs, with its self and total time in each. The
// runs' ids differ; names are what a user compares. docs/report.md, "Comparing two runs".

#include <string>
#include <vector>

#include "report/profile/flat_profile.h"

namespace cprof::report {

struct Report;

struct DiffRow {
  std::string name;      // the function, or file:line
  std::string location;  // functions: file:line where defined ("" when unknown)
  Measure base_self, now_self;
  Measure base_total, now_total;
  // Self time's change in ns (now - base), the sort key.
  int64_t change_ns() const {
    return static_cast<int64_t>(now_self.time_ns) - static_cast<int64_t>(base_self.time_ns);
  }
};

struct ProfileDiff {
  Measure base_all, now_all;  // every sample with a stack, in each
  // Rows in either run, the largest change of self time first (either sign).
  std::vector<DiffRow> rows;
};

ProfileDiff diff_profiles(const Report& base, const Report& now, bool by_line);

// `part`'s time as a share of its run's sampled time `all`, as the diff views print it:
// "42.86%", or "-" when the run sampled nothing.
std::string run_share(const Measure& part, const Measure& all);

// Whether a change in sample counts lies within sampling noise: each count varies by
// about its square root (Poisson), so a difference under twice the combined spread could
// be chance.
bool change_within_noise(uint64_t base_samples, uint64_t now_samples);

}  // namespace cprof::report
