#pragma once
// Who this process is (host, executable, command line, MPI/Slurm rank), the process record
// that opens each of its results files, and their names:
// "<exe>.<host>.<pid>[.rank<N>][.<kind>].cprof", unique within the directory.

#include <cstdint>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::sampler {

struct ProcessIdentity {
  int64_t pid = 0;   // 0: this process; another's (sample-run --pid) otherwise
  int64_t ppid = 0;  // with `pid`
  std::string hostname;
  std::string executable;  // /proc/self/exe
  std::vector<std::string> command_line;
  int64_t rank = -1;       // OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID
};

ProcessIdentity current_process_identity();
// Another process's, from /proc/PID (its rank from its environment); the executable
// without " (deleted)". `ppid` is left for the caller.
ProcessIdentity process_identity_of(int64_t pid);

// Reads the rank variables of MPI launchers and Slurm; -1 when none is set.
int64_t rank_from_environment();
// The same, from another process's environment ("NAME=VALUE" strings).
int64_t rank_in_environment(const std::vector<std::string>& environment);
// The NUL-separated strings of a /proc file (cmdline, environ); empty when unreadable.
std::vector<std::string> proc_strings(const std::string& path);
// The job's rank count from the same launchers' variables; -1 when none is set.
int64_t job_size_from_environment();

// The name of this process's results file without ".cprof": ResultsWriter::open_unique
// creates the first of "<stem>.cprof", "<stem>.1.cprof", ... that does not exist yet.
// `kind` names a file written beside the sampler's ("gpu" for the GPU hooks'); "" for it.
std::string results_file_stem(const std::string& dir, const ProcessIdentity& id,
                              const std::string& kind = "");

// The rank in a results file's name (".rank<N>." before the kind and ".cprof"), or -1:
// the launchers of an MPI job's ranks share one directory, and each sums up its own.
int64_t rank_of_results_file(const std::string& path);

// The identity, pid, parent and start times (realtime and CLOCK_MONOTONIC, now) of a
// process record; the writer fills in what it records (engine, clock, unwinder, ...).
format::ProcessRecord process_record_now(const ProcessIdentity& id);

}  // namespace cprof::sampler
