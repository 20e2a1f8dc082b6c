#pragma once
// The programs an MPI launcher runs beside the ranks, by executable name: the launchers
// users start (mpirun, mpiexec, orterun, prterun, mpiexec.hydra, srun) and their daemons
// (orted, prted, prte, hydra_pmi_proxy, slurmstepd). The report puts their processes in a
// row of their own; causal-run resolves --line in the ranks' program instead of theirs,
// and the causal runtime runs no experiment in them. Header-only: each part uses it.

#include <algorithm>
#include <array>
#include <string_view>

namespace cprof {

// `path` may be a path; its last component is compared.
inline bool is_mpi_launcher(std::string_view path) {
  if (const auto slash = path.rfind('/'); slash != std::string_view::npos) {
    path.remove_prefix(slash + 1);
  }
  static constexpr std::array<std::string_view, 11> kLaunchers = {
      "mpirun", "mpiexec",       "orterun",         "orted", "prterun",   "prted",
      "prte",   "mpiexec.hydra", "hydra_pmi_proxy", "srun",  "slurmstepd"};
  return std::find(kLaunchers.begin(), kLaunchers.end(), path) != kLaunchers.end();
}

}  // namespace cprof
