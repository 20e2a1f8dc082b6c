#pragma once
// The few lines a launcher prints after the run: what was written where, the warnings
// the runtime recorded (once each), and how to look at it.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::launch {

// "1 experiment", "3 locations", "2 processes" (given `words`): the word with an "s",
// or `words`, unless n is 1.
std::string plural(uint64_t n, const char* word, const char* words = nullptr);

std::set<std::string> results_files_in(const std::string& dir);

// Processes that still write new results files of DIR after the program's own process
// ended: children it left running (its process record names this host and a pid that
// still runs, not as a zombie; or, with no record yet, run_processes.h finds it).
struct Writers {
  size_t running = 0;           // distinct processes
  std::set<std::string> files;  // their files, still growing
};
// How long a launcher waits for them before it sums up: long enough for children that
// finish soon after the program, short enough that a daemon it started does not hold
// the launcher (and the program's exit status) up.
inline constexpr std::chrono::milliseconds kWritersWait{3000};
// Waits up to `limit` (0: only looks) for the writers of DIR's new files to end. `rank`
// (>= 0: the launcher runs as one rank of an MPI job, all ranks writing to DIR) keeps to
// that rank's files, as summarize_new_results does.
Writers wait_for_writers(const std::string& dir, const std::set<std::string>& before,
                         std::chrono::milliseconds limit, int64_t rank = -1);

struct RunSummary {
  int64_t rank = -1;  // the MPI rank summed up alone (summarize_new_results' `rank`)
  size_t files = 0;
  // Counted as causal-report counts them: a process per file that can be read (an exec'd
  // image writes a file of its own), except a GPU hooks' file, which belongs to the
  // sampler's file of the same process.
  size_t processes = 0;
  size_t still_running = 0;  // Writers::running: what they have not written yet is not here
  uint64_t samples = 0;
  uint64_t threads = 0;
  uint64_t period_ns = 0;  // the sampling period (the largest a process records)
  // Processes whose runtime wrote everything before a signal ended them
  // (sampler/runtime/terminating_signals.h).
  size_t written_before_signal = 0;
  // Processes whose runtime wrote its samples when a SIGABRT handler of the program's
  // returned (abort() then ends the process past the runtime).
  size_t written_after_abort_handler = 0;
  // GPU hooks' files (--gpu): what they recorded, and the trace windows (--gpu-duty).
  size_t gpu_files = 0;
  uint64_t kernels = 0;
  uint64_t copies = 0;
  uint64_t gpu_windows = 0;
  uint64_t gpu_traced_ns = 0;  // summed window length
  double gpu_duty = 0;         // of the last window seen
  uint64_t dropped = 0;        // samples the threads' buffers had no room for
  // Files of processes that ended whose writer never ended them (no end record,
  // format/framing.h): killed, or writing stopped (a full disk).
  size_t cut_files = 0;
  std::vector<std::string> warnings;  // distinct, in order of appearance
  std::vector<std::string> problems;  // files that could not be read fully
};

// The new files of DIR. A file still being written (in `writers`) may end in a chunk
// not written yet: that is not reported as a problem. `also`, when given, sees every
// record of those files in the same pass (a launcher's own counts). `rank` >= 0: only that
// MPI rank's files (named ".rank<N>"): under `mpirun ... sample-run -o DIR`, each rank's
// launcher sums up its own rank, not the whole job's directory again.
RunSummary summarize_new_results(const std::string& dir, const std::set<std::string>& before,
                                 const Writers& writers = {},
                                 const std::function<void(const format::Record&)>& also = {},
                                 int64_t rank = -1);
// How the launcher's own child ended (ChildResult), for what the files cannot say: the CPU
// time it used, and the signal that killed it before it wrote its last samples.
struct ProgramEnd {
  int term_signal = 0;
  uint64_t cpu_ns = 0;  // 0: not known
};
void print_run_summary(FILE* out, const char* tool, const std::string& dir, const RunSummary& s,
                       const ProgramEnd& end = {});
// "SIGTERM", or "signal 70" for one without a name.
std::string signal_name(int sig);

}  // namespace cprof::launch
