#pragma once
// MPI by its function names, whichever library implements it (Open MPI, MPICH, Intel MPI,
// and their Fortran bindings): the calls in which a rank waits for others, and the
// processes an MPI launcher starts that are not ranks.

#include <string_view>

#include "common/mpi_launchers.h"

namespace cprof::report {

// A function of MPI's API: MPI_* or PMPI_* (C), mpi_*_ or MPI_* (Fortran, any case, with
// the trailing underscores compilers add). A version suffix ("@@...") is ignored.
bool is_mpi_function(std::string_view name);

// A call that blocks until other ranks get there: MPI_Wait, Waitall, Waitany, Waitsome,
// Recv, Mrecv, Probe, Mprobe, Send and Ssend (a large message waits for its receiver),
// Sendrecv(_replace), the collectives (Barrier, Bcast, Reduce, Allreduce, Reduce_scatter,
// Scan, Exscan, Gather(v), Allgather(v), Scatter(v), Alltoall(v,w), their Neighbor_ forms)
// the one-sided synchronizations (Win_fence, Win_wait, Win_complete) and Finalize (a
// barrier in most libraries: early ranks wait there for the last). Not the
// polling calls (MPI_Test*, MPI_Iprobe) nor the non-blocking starts (MPI_I*).
bool is_mpi_wait_call(std::string_view name);

// An MPI launcher's own executables: common/mpi_launchers.h (cprof::is_mpi_launcher).

}  // namespace cprof::report
