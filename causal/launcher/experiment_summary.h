#pragma once
// What causal-run says after the run about its experiments: counted record by record in
// the run summary's own pass over the new results files (a file is one process, its
// process record first).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::causal {

class ExperimentSummary {
 public:
  size_t experiments = 0;
  size_t with_progress = 0;
  size_t never_progressed = 0;  // processes that said kNoProgressMessage
  std::set<std::string> locations;
  // The --progress FILE:LINE points' visits, summed over the processes that counted them
  // (kCountedVisitsMessage).
  std::map<std::string, uint64_t> counted_visits;

  void count(const format::Record& r);
  // A record of a results file the directory held before this causal-run (--append): its
  // experiments are evidence the report merges, so the notes below weigh them, but they
  // are not this run's to count above.
  void count_earlier(const format::Record& r);

  // The named locations (--line/--function) whose curves are below the minimum evidence,
  // by the report's own rule (causal/minimum_evidence.h), on the experiments the report
  // keeps (causal/idle_tail.h): what the report will call "too little evidence yet" is
  // said here first, in the same words. "" when every location has it.
  std::string too_few(uint64_t shortest_ms);
  // End to end: "" when some location's curve meets the minimum evidence; otherwise the
  // runs a curve needs (pairs at each of `speedup_levels`, at most kMinSpeedups of them)
  // (automatic mode: which location the pairs continue on).
  std::string too_few_runs(size_t speedup_levels, bool automatic) const;

 private:
  // The last process's experiments, without those after its last progress.
  void end_process();
  void keep_evidence(const format::ExperimentRecord& e);

  std::vector<format::ExperimentRecord> with_points_;     // progress-point experiments
  std::vector<format::ExperimentRecord> end_to_end_;      // one per end-to-end run
  std::vector<format::ExperimentRecord> process_points_;  // of the file being read
};

}  // namespace cprof::causal
