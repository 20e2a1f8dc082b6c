#pragma once
// The processes of a launcher's run, found in /proc rather than by their results files: a
// child the program forked makes its file in the sampler's fork handler, which a loaded
// machine may not have run yet when the program ends.

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace cprof::launch {

// What /proc/<pid>/stat says of a process that the launchers need.
struct ProcStat {
  char state = '?';
  uint64_t start_ticks = 0;  // clock ticks after boot
  // A zombie (or dead) process has written all it will; only its parent's wait is missing.
  bool done() const { return state == 'Z' || state == 'X'; }
};
// /proc/<which>/stat ("self" or a pid); nullopt when it cannot be read (the process is
// gone, or there is no /proc).
std::optional<ProcStat> read_proc_stat(const std::string& which);

// Pids of this host's running processes (zombies are done) that started no earlier than
// this launcher, whose environment names DIR as CPROF_OUTPUT_DIR (and RANK as theirs when
// rank >= 0), and that have the sampler library their CPROF_PRELOAD names mapped: the
// processes that write or will write this run's results into DIR. nullopt where /proc
// cannot be read.
std::optional<std::set<int64_t>> processes_of_run(const std::string& dir, int64_t rank);

}  // namespace cprof::launch
