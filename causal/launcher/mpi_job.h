#pragma once
// causal-run in an MPI job (docs/causal.md, "MPI"): whether it runs one, the key its
// ranks share, and what it adds to the program's environment for them.

#include <string>
#include <vector>

#include "sampler/launcher/launch.h"

namespace cprof::causal {

// The job's key as every rank's causal-run derives it alike, "" when this causal-run is
// not a rank: the MPI launcher's job id (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid,
// SLURM_JOB_ID.SLURM_STEP_ID, PMI_KVSNAME), else the parent's pid on this host (the
// ranks of a single-host mpirun are its children).
std::string rank_job_key();

// A key for the job that `program`, an MPI launcher causal-run starts, runs (its ranks
// inherit it): this causal-run's pid and start time. "" when `program` is no MPI
// launcher (common/mpi_launchers.h).
std::string launched_job_key(const std::string& program);

// The ranks' program in an MPI launcher's command line (`mpirun -np 4 ./app ...`): the
// first argument after the launcher's own options that is a runnable program (a path or
// on PATH), canonical; "" when none is. What --line and --function resolve against.
std::string rank_program(const std::vector<std::string>& command);

// Adds the MPI wrappers (`mpi_library`) to LD_PRELOAD after the runtime, and, when
// `lockstep`, the job key (CPROF_CAUSAL_JOB) that puts the ranks' experiments in lockstep.
void add_mpi_environment(launch::ChildEnvironment& env, const std::string& mpi_library,
                         const std::string& key, bool lockstep);

}  // namespace cprof::causal
