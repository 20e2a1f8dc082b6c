#pragma once
// What the rank views say under their table, in text and HTML alike: the spread of the
// ranks' work and MPI waits (mean, min, max, stddev, with the ranks at the ends), the
// straggler the others wait for, and the MPI calls they wait in. Internal to render/.

#include <string>
#include <vector>

#include "report/report.h"

namespace cprof::report {

// "0", "launcher" (an MPI launcher's own processes), "none" (no rank).
std::string rank_row_name(int64_t rank);

// The text header's line for an MPI job: "MPI: 4 ranks; 24% of their MPI threads' time
// waits in MPI (MPI_Waitall, MPI_Allreduce); straggler: rank 2 (--by rank: the spread)".
// "" when no two ranks called MPI.
std::string mpi_summary_line(const Report& r);

// The lines, without a trailing newline; none when no two ranks called MPI.
std::vector<std::string> rank_spread_lines(const Report& r);

}  // namespace cprof::report
