#include "report/profile/mpi_calls.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace cprof::report {
namespace {

// The part after "MPI_" in lower case ("allreduce"), or "" when `name` is no MPI function:
// C's MPI_Xxx and PMPI_Xxx (Fortran compilers that keep upper case too), and Fortran's
// lower-case mpi_xxx_ and pmpi_xxx_ (with the underscores the compilers add).
std::string mpi_call_of(std::string_view name) {
  if (const auto at = name.find('@'); at != std::string_view::npos) name = name.substr(0, at);
  std::string_view rest;
  const bool c = name.starts_with("MPI_") || name.starts_with("PMPI_");
  const bool fortran =
      (name.starts_with("mpi_") || name.starts_with("pmpi_")) && name.ends_with('_');
  if (c || fortran) rest = name.substr(name.find('_') + 1);
  while (rest.ends_with('_')) rest.remove_suffix(1);
  if (rest.empty() || !std::isalpha(static_cast<unsigned char>(rest[0]))) return {};
  std::string call(rest);
  std::transform(call.begin(), call.end(), call.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return call;
}

}  // namespace

bool is_mpi_function(std::string_view name) { return !mpi_call_of(name).empty(); }

bool is_mpi_wait_call(std::string_view name) {
  std::string call = mpi_call_of(name);
  if (call.empty()) return false;
  if (call.starts_with("neighbor_")) call.erase(0, 9);
  static constexpr std::array<std::string_view, 33> kWaits = {
      "wait",     "waitall",      "waitany",  "waitsome",  "recv",           "mrecv",
      "probe",    "mprobe",       "send",     "ssend",     "sendrecv",       "sendrecv_replace",
      "barrier",  "bcast",        "reduce",   "allreduce", "reduce_scatter", "reduce_scatter_block",
      "scan",     "exscan",       "gather",   "gatherv",   "allgather",      "allgatherv",
      "scatter",  "scatterv",     "alltoall", "alltoallv", "alltoallw",      "win_fence",
      "win_wait", "win_complete", "finalize"};
  return std::find(kWaits.begin(), kWaits.end(), call) != kWaits.end();
}

}  // namespace cprof::report
