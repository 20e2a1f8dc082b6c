#pragma once
// What the report says of the CPU time no sample covers (profile/cpu_accounting.h), alike
// in the text header and tables and the HTML page: the share of the recorded CPU time the
// samples cover, and rows named for what ran unsampled. Internal to render/.

#include <cstdint>
#include <string>
#include <vector>

#include "report/report.h"

namespace cprof::report {

// "[unsampled: 3,000 short processes of basename]"
std::string unsampled_processes_label(const UnsampledProcesses& g);
// "[unsampled: 12 threads of app[100]]"
std::string unsampled_threads_label(const ProcessProfile& p, const UnsampledThreads& g);
// The CPU time no sample covers as rows, for the formats of stacks (pprof, speedscope,
// chrome), where it is a frame of its own so that their totals hold it too: one per
// group of processes without a sample, one per process's threads without a sample, and
// "[unsampled: start-up and last periods of sampled processes]". Most time first; empty
// when no process recorded its usage or the samples cover it all.
struct UnsampledRow {
  std::string label;
  uint64_t ns = 0;
};
std::vector<UnsampledRow> unsampled_rows(const Report& r);
// "CPU time recorded: 2.74 s; samples cover 23.6% of it (648 ms); unsampled 2.09 s: 3,000
// short processes of basename 1.85 s; ..."; "" when no process recorded its usage.
std::string cpu_account_line(const Report& r);
// Under a table of samples alone: "(not in this table: 2.09 s of CPU time that no sample
// covers, 76.4% of the 2.74 s recorded; --by process shows where)". "" when none.
std::string unsampled_footer(const Report& r);
// "... 5,995 more processes (0.12% of the time)": the rows a table left out. `dots` is
// "..." in text, "…" in HTML.
std::string more_rows_line(const char* dots, uint64_t n, const char* word, const char* words,
                           double fraction);

}  // namespace cprof::report
