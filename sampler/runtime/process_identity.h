#pragma once
// Who this process is (host, executable, command line, MPI/Slurm rank) and the name of
// its results file: "<exe>.<host>.<pid>[.rank<N>].cprof", unique within the directory.

#include <cstdint>
#include <string>
#include <vector>

namespace cprof::sampler {

struct ProcessIdentity {
  std::string hostname;
  std::string executable;  // /proc/self/exe
  std::vector<std::string> command_line;
  int64_t rank = -1;       // OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID
};

ProcessIdentity current_process_identity();

// Reads the rank variables of MPI launchers and Slurm; -1 when none is set.
int64_t rank_from_environment();

std::string results_file_path(const std::string& dir, const ProcessIdentity& id);

}  // namespace cprof::sampler
