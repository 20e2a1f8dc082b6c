#include "report/load/launches.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

namespace cprof::report {

std::string separate_launches_warning(const std::vector<ProcessProfile>& processes) {
  using Process = std::pair<std::string, int64_t>;  // host, pid
  std::map<std::string, std::set<Process>> in_run;  // run subdirectory -> its processes
  for (const auto& p : processes) {
    if (p.has_process_record) in_run[p.run].insert({p.process.hostname, p.process.pid});
  }
  // run subdirectory -> its launches: (host, parent of a root), or ("", -1) for MPI ranks
  std::map<std::string, std::set<Process>> launches;
  for (const auto& p : processes) {
    if (!p.has_process_record) continue;
    const auto& mine = in_run[p.run];
    if (mine.count({p.process.hostname, p.process.ppid}) != 0) continue;  // not a root
    launches[p.run].insert(p.process.rank >= 0 ? Process{"", -1}
                                               : Process{p.process.hostname, p.process.ppid});
  }
  size_t most = 0;
  std::string where;
  for (const auto& [run, roots] : launches) {
    if (roots.size() > most) {
      most = roots.size();
      where = run;
    }
  }
  if (most <= 1) return "";
  // --append merges on purpose (causal experiments add up across runs: docs/causal.md), so
  // the advice is for the other case, not against the option.
  return fmt::format(
      "{} holds {} separately launched runs, merged here: as --append asks (experiments add "
      "up across runs), or by mistake (files copied together, runs writing at once); to see "
      "them apart, give each run a directory of its own (-o)",
      where.empty() ? "the results directory" : "run directory " + where, most);
}

}  // namespace cprof::report
