// A bulk-synchronous MPI job as HPC codes are written: each step every rank updates its
// cells (compute_cells), swaps one halo cell with each neighbour on a ring
// (exchange_halo: MPI_Isend/MPI_Irecv + MPI_Waitall) and joins a global residual
// (reduce_residual: MPI_Allreduce). One rank, the straggler, has more cells, so each
// step its peers wait for it inside MPI.
//
//   halo STEPS CELLS [STRAGGLER_RANK EXTRA_PERCENT]
//
// Knobs for causal validation (experiments/mpi/), read from the environment, each a
// percentage of a line's work physically cut:
//   HALO_CUT_ALL=P       cut compute_cells' work on every rank by P%
//   HALO_CUT_STRAGGLER=P cut it on the straggler only
//   HALO_CUT_SIDE=P      cut side_work's, a line off the critical path (it runs while the
//                        rank waits for its halo and is small)
// One throughput point per step (CAUSAL_PROGRESS in rank 0 after the reduction), so the
// job's throughput is steps per second. Built with -DHALO_COZ the point is Coz's
// (COZ_PROGRESS), for experiments/mpi/validate.sh's comparison with Coz.
#ifdef HALO_COZ
#include <coz.h>
#define HALO_PROGRESS COZ_PROGRESS
#else
#include <causal/progress.h>
#define HALO_PROGRESS CAUSAL_PROGRESS
#endif
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double percent_kept(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return 1.0;
  const double cut = std::atof(v);
  return cut < 0 || cut >= 100 ? 1.0 : 1.0 - cut / 100.0;
}

// The per-cell update: a few dependent floating-point operations the compiler cannot
// fold, so its cost is proportional to the count. The whole update is one statement on
// one line, with no inlined call (vector::operator[] would put the index's division on
// stl_vector.h's line), so that this line and the `for` line above it (the loop control,
// about a tenth of the samples) hold all of the loop's time: the knobs cut the loop, and
// validate.sh speeds up the two lines. Every cell is drawn towards 1 to 8, never 0: a
// cell drawn towards 0 decays into a subnormal double after ~700,000 updates (about 200
// steps of 30 ms) and stays at the smallest one, and subnormal arithmetic made every
// later step ~2x slower, so long runs and short ones timed different programs.
__attribute__((noinline)) double compute_cells(std::vector<double>& cells, long count) {
  double sum = 0;
  double* const d = cells.data();
  const size_t n = cells.size();
  const auto m = static_cast<size_t>(count);
  for (size_t i = 0; i < m; ++i) {
    sum += d[i % n] = d[i % n] * 0.999 + 0.001 * static_cast<double>((i & 7) + 1);  // the work line
  }
  return sum;
}

// Work that overlaps the halo exchange (posted, not yet waited for): small, so making it
// faster does not move the job.
__attribute__((noinline)) double side_work(long count) {
  double x = 1.0;
  for (long i = 0; i < count; ++i) x = x * 1.0000001 + 1e-9;  // the side line
  return x;
}

__attribute__((noinline)) double exchange_halo(std::vector<double>& cells, int rank, int size,
                                               long side) {
  const int left = (rank + size - 1) % size;
  const int right = (rank + 1) % size;
  double from_left = 0, from_right = 0;
  MPI_Request req[4];
  MPI_Irecv(&from_left, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(&from_right, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(&cells.front(), 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(&cells.back(), 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
  const double s = side_work(side);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  cells.front() = (cells.front() + from_left) * 0.5;
  cells.back() = (cells.back() + from_right) * 0.5;
  return s;
}

__attribute__((noinline)) double reduce_residual(double local) {
  double global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) std::fprintf(stderr, "usage: halo STEPS CELLS [STRAGGLER_RANK EXTRA_PERCENT]\n");
    MPI_Finalize();
    return 2;
  }
  const long steps = std::atol(argv[1]);
  const long cells_per_rank = std::atol(argv[2]);
  const int straggler = argc > 3 ? std::atoi(argv[3]) : -1;
  const long extra = argc > 4 ? std::atol(argv[4]) : 0;
  const bool slow = rank == straggler;

  double keep = percent_kept("HALO_CUT_ALL");
  if (slow) keep *= percent_kept("HALO_CUT_STRAGGLER");
  const long own = static_cast<long>(
      static_cast<double>(slow ? cells_per_rank * (100 + extra) / 100 : cells_per_rank) * keep);
  const long side =
      static_cast<long>(static_cast<double>(cells_per_rank / 20) * percent_kept("HALO_CUT_SIDE"));

  std::vector<double> cells(4096, 1.0);
  double residual = 0, sink = 0;
  const double start = MPI_Wtime();
  for (long s = 0; s < steps; ++s) {
    const double local = compute_cells(cells, own);
    sink += exchange_halo(cells, rank, size, side);
    residual = reduce_residual(local);
    if (rank == 0) HALO_PROGRESS;
  }
  const double seconds = MPI_Wtime() - start;
  if (rank == 0)
    std::printf("halo: %d ranks, %ld steps in %.3f s (%.1f steps/s), residual %.3f\n", size, steps,
                seconds, static_cast<double>(steps) / seconds, residual + sink * 0);
  MPI_Finalize();
  return 0;
}
