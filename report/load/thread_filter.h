#pragma once
// `causal-report --pid` and `--thread`: a profile of some processes or threads of the
// results only. Applied after loading (a thread's last name is known only at the end of
// its file, format 1.5's thread_name record), before anything is built from the samples.

#include <cstdint>
#include <string>
#include <vector>

#include "report/load/loader.h"

namespace cprof::report {

struct ThreadFilter {
  std::vector<int64_t> pids;         // the processes to keep; empty: every one
  std::vector<std::string> threads;  // a tid, or a name pattern (fnmatch: "worker-*"); empty: every thread

  bool empty() const { return pids.empty() && threads.empty(); }
  // Whether a thread of a kept process is kept: its tid or its name matches one entry.
  bool keeps_thread(int64_t tid, const std::string& name) const;
};

// Keeps the processes and threads `filter` names, with their samples (both clocks, the
// timeline) and the GPU kernels and copies their threads launched; a process left with
// no thread is dropped. What a process counted as a whole stays its own (experiments,
// metrics, stackless samples). Returns the one line the report shows, "" for an empty
// filter: "--thread 'alpha': 1 of 2 processes, 1 of 21 threads, 483 of 855 samples".
std::string apply_thread_filter(LoadResult& loaded, const ThreadFilter& filter);

}  // namespace cprof::report
