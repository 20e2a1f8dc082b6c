// libcprof-causal-mpi.so: the MPI calls in which a rank waits for others, wrapped so the
// causal runtime counts the wait as blocked (peer_wait_api.h), and the sends that let
// another rank go on, after which it pays its debt first. causal-run preloads it after
// libcprof-causal.so only for an MPI job (so no other program sees MPI symbols that are
// not its MPI's).
//
// Without an MPI header: handles are ints (MPICH, Intel MPI) or pointers (Open MPI), and
// counts ints; on x86-64 each is passed in an integer register or an 8-byte stack slot,
// so a wrapper that takes and forwards every argument as a uintptr_t passes the caller's
// bits through unchanged whichever MPI it is (the C API has no floating-point or
// variadic arguments). The real function is looked up on first call with RTLD_NEXT, so
// an MPI loaded later (mpi4py's dlopen) is found too.
//
// Fortran's bindings enter the library past the C names (Open MPI's mpi_allreduce_ calls
// PMPI_Allreduce), so each call is wrapped under its Fortran names too: the subroutine
// takes every argument by reference and one more, ierror, so the same Word forwarding
// holds. The names are the compilers' manglings (mpi_x_ for gfortran, flang and ifx;
// mpi_x, mpi_x__ and MPI_X for others) and Open MPI's ompi_x_f, which its mpi_f08 module
// calls through the PLT. A library whose Fortran entry calls its C one (MPICH) nests the
// two waits, which the runtime allows.

#include <dlfcn.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "causal/runtime/peer_wait_api.h"

namespace {

using Word = uintptr_t;

const cprof_peer_wait_api* api() {
  static std::atomic<const cprof_peer_wait_api*> cached{nullptr};
  static std::atomic<bool> looked{false};
  if (!looked.load(std::memory_order_acquire)) {
    const cprof_peer_wait_api* found = nullptr;
    if (auto fn = reinterpret_cast<cprof_peer_wait_api_fn>(
            dlsym(RTLD_DEFAULT, CPROF_PEER_WAIT_API_SYMBOL))) {
      found = fn();
    }
    cached.store(found, std::memory_order_relaxed);
    looked.store(true, std::memory_order_release);
  }
  return cached.load(std::memory_order_relaxed);
}

void* real(std::atomic<void*>& slot, const char* name) {
  void* f = slot.load(std::memory_order_acquire);
  if (f == nullptr) {
    f = dlsym(RTLD_NEXT, name);
    slot.store(f, std::memory_order_release);
  }
  return f;
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Around a waiting call: blocked while inside.
struct Wait {
  const cprof_peer_wait_api* a = api();
  Wait() {
    if (a != nullptr) a->begin();
  }
  ~Wait() {
    if (a != nullptr) a->end();
  }
  Wait(const Wait&) = delete;
  Wait& operator=(const Wait&) = delete;
};

// Before a call that lets another rank go on: pay first.
void wake() {
  if (const auto* a = api()) a->wake();
}

constexpr int kNoFunction = 16;  // MPI_ERR_OTHER in MPICH and Open MPI alike

// Delays across hosts (docs/causal.md, "Delays across hosts"): the ranks of a host share
// one delay count; ranks on other hosts learn it at the collectives where every rank of a
// communicator meets anyway (barrier, allreduce, allgather, alltoall, reduce-scatter),
// through one more MPI_Allreduce of 16 bytes (MPI_MAX; peer_wait_api.h says what) on the
// same communicator, right after the program's own. Every rank decides alike whether to
// (the launcher's variables, the same MPI), so the extra collectives match up. Off on one
// host.
struct Exchange {
  using Allreduce = int (*)(const void*, void*, Word, Word, Word, Word);
  using CommF2c = Word (*)(Word);
  Allreduce allreduce = nullptr;
  CommF2c comm_f2c = nullptr;
  Word type = 0;  // an unsigned 64-bit integer type
  Word op_max = 0;
  bool on = false;
};

long variable(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : -1;
}

// The job runs on several hosts, by the launcher's own variables (Open MPI, MPICH's
// Hydra, Slurm), or a test asks for it. Not known: no.
bool job_spans_hosts() {
  if (const char* v = std::getenv(CPROF_HOST_PER_RANK_ENV);
      v != nullptr && std::strcmp(v, "1") == 0)
    return true;
  const long ompi_size = variable("OMPI_COMM_WORLD_SIZE");
  const long ompi_local = variable("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (ompi_size > 0 && ompi_local > 0) return ompi_local < ompi_size;
  const long pmi_size = variable("PMI_SIZE");
  const long hydra_local = variable("MPI_LOCALNRANKS");
  if (pmi_size > 0 && hydra_local > 0) return hydra_local < pmi_size;
  return variable("SLURM_JOB_NUM_NODES") > 1;
}

// The MPI's handles for an unsigned 64-bit type and MPI_MAX, without its header: Open
// MPI's are the addresses of its predefined objects; MPICH's ABI (MPICH, Intel MPI,
// MVAPICH) fixes them as integers.
bool find_handles(Exchange& x) {
  if (void* type = dlsym(RTLD_DEFAULT, "ompi_mpi_unsigned_long_long")) {
    x.type = reinterpret_cast<Word>(type);
    x.op_max = reinterpret_cast<Word>(dlsym(RTLD_DEFAULT, "ompi_mpi_op_max"));
    return x.op_max != 0;
  }
  using Version = int (*)(char*, int*);
  auto version = reinterpret_cast<Version>(dlsym(RTLD_DEFAULT, "PMPI_Get_library_version"));
  static char text[8192];  // MPICH's MPI_MAX_LIBRARY_VERSION_STRING
  int length = 0;
  if (version == nullptr || version(text, &length) != 0) return false;
  if (std::strstr(text, "MPICH") == nullptr && std::strstr(text, "Intel(R) MPI") == nullptr)
    return false;
  x.type = 0x4c000819;    // MPI_UNSIGNED_LONG_LONG
  x.op_max = 0x58000001;  // MPI_MAX
  return true;
}

const Exchange& exchange() {
  static std::atomic<const Exchange*> cached{nullptr};
  const Exchange* x = cached.load(std::memory_order_acquire);
  if (x != nullptr) return *x;
  static Exchange found;
  static std::atomic<bool> filling{false};
  if (!filling.exchange(true)) {
    const cprof_peer_wait_api* a = api();
    if (a != nullptr && a->version >= 2 && job_spans_hosts() && find_handles(found)) {
      found.allreduce = reinterpret_cast<Exchange::Allreduce>(dlsym(RTLD_NEXT, "PMPI_Allreduce"));
      found.comm_f2c = reinterpret_cast<Exchange::CommF2c>(dlsym(RTLD_NEXT, "PMPI_Comm_f2c"));
      found.on = found.allreduce != nullptr && found.comm_f2c != nullptr;
    }
    cached.store(&found, std::memory_order_release);
    return found;
  }
  // Another thread is filling it: wait for it (once, at the first collective).
  while ((x = cached.load(std::memory_order_acquire)) == nullptr) {
  }
  return *x;
}

// Around a collective where every rank meets: a wait whose length the exchange needs
// (timed here only, not in every wait).
struct Meet : Wait {
  uint64_t began_ns = monotonic_ns();
};

// After a meeting collective on `comm` returned `rc`: the job's count to the runtime.
void exchange_delays(Word comm, const Meet& wait, int rc) {
  const Exchange& x = exchange();
  if (!x.on || rc != 0) return;
  uint64_t mine[CPROF_EXCHANGED_VALUES] = {};
  uint64_t job[CPROF_EXCHANGED_VALUES] = {};
  wait.a->exchange_out(mine);
  if (x.allreduce(mine, job, CPROF_EXCHANGED_VALUES, x.type, x.op_max, comm) != 0) return;
  wait.a->exchange_in(job, monotonic_ns() - wait.began_ns);
}

// A Fortran call's error code (mpi_f08's ierror is optional: a null pointer then).
int fortran_error(Word ierror) { return ierror == 0 ? 0 : *reinterpret_cast<const int*>(ierror); }

// The C handle of a Fortran communicator argument (an MPI_Fint by reference).
Word fortran_comm(Word comm) {
  const Exchange& x = exchange();
  return x.on ? x.comm_f2c(static_cast<Word>(*reinterpret_cast<const int*>(comm))) : 0;
}

}  // namespace

#define CPROF_MPI_EXPORT extern "C" __attribute__((visibility("default")))

// A wrapper of NAME taking PARAMS (Word a1, ...) and forwarding ARGS (a1, ...): blocked
// inside (WAIT), or paying first (WAKE). PARAMS is a parameter list, not an expression.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define CPROF_MPI_WAIT(NAME, PARAMS, ARGS)                       \
  CPROF_MPI_EXPORT int NAME PARAMS {                             \
    static std::atomic<void*> slot{nullptr};                     \
    auto f = reinterpret_cast<int(*) PARAMS>(real(slot, #NAME)); \
    if (f == nullptr) return kNoFunction;                        \
    Wait wait;                                                   \
    return f ARGS;                                               \
  }
// A collective where every rank of the communicator COMM meets: a wait, after which the
// hosts' delay counts are exchanged.
#define CPROF_MPI_MEET(NAME, PARAMS, ARGS, COMM)                 \
  CPROF_MPI_EXPORT int NAME PARAMS {                             \
    static std::atomic<void*> slot{nullptr};                     \
    auto f = reinterpret_cast<int(*) PARAMS>(real(slot, #NAME)); \
    if (f == nullptr) return kNoFunction;                        \
    Meet wait;                                                   \
    const int rc = f ARGS;                                       \
    exchange_delays(COMM, wait, rc);                             \
    return rc;                                                   \
  }
#define CPROF_MPI_WAKE(NAME, PARAMS, ARGS)                       \
  CPROF_MPI_EXPORT int NAME PARAMS {                             \
    static std::atomic<void*> slot{nullptr};                     \
    auto f = reinterpret_cast<int(*) PARAMS>(real(slot, #NAME)); \
    if (f == nullptr) return kNoFunction;                        \
    wake();                                                      \
    return f ARGS;                                               \
  }
// A Fortran subroutine NAME: the same, returning nothing. Reached only through a name
// the program was linked against, so the real one exists; if it did not, the call does
// nothing rather than jump to null.
#define CPROF_MPI_FORTRAN(NAME, PARAMS, ARGS, BEFORE, AFTER)      \
  CPROF_MPI_EXPORT void NAME PARAMS {                             \
    static std::atomic<void*> slot{nullptr};                      \
    auto f = reinterpret_cast<void(*) PARAMS>(real(slot, #NAME)); \
    if (f == nullptr) return;                                     \
    BEFORE;                                                       \
    f ARGS;                                                       \
    AFTER;                                                        \
  }
// The Fortran names of MPI_Stem (stem, STEM: lower and upper case), one argument more.
#define CPROF_MPI_FORTRAN_NAMES(stem, STEM, PARAMS, ARGS, BEFORE, AFTER) \
  CPROF_MPI_FORTRAN(mpi_##stem##_, PARAMS, ARGS, BEFORE, AFTER)          \
  CPROF_MPI_FORTRAN(mpi_##stem, PARAMS, ARGS, BEFORE, AFTER)             \
  CPROF_MPI_FORTRAN(mpi_##stem##__, PARAMS, ARGS, BEFORE, AFTER)         \
  CPROF_MPI_FORTRAN(MPI_##STEM, PARAMS, ARGS, BEFORE, AFTER)             \
  CPROF_MPI_FORTRAN(ompi_##stem##_f, PARAMS, ARGS, BEFORE, AFTER)
#define CPROF_MPI_FORTRAN_WAIT(stem, STEM, PARAMS, ARGS) \
  CPROF_MPI_FORTRAN_NAMES(stem, STEM, PARAMS, ARGS, Wait wait, (void)0)
#define CPROF_MPI_FORTRAN_WAKE(stem, STEM, PARAMS, ARGS) \
  CPROF_MPI_FORTRAN_NAMES(stem, STEM, PARAMS, ARGS, wake(), (void)0)
// A meeting collective: COMM is the communicator argument, IERR the error one.
#define CPROF_MPI_FORTRAN_MEET(stem, STEM, PARAMS, ARGS, COMM, IERR) \
  CPROF_MPI_FORTRAN_NAMES(stem, STEM, PARAMS, ARGS, Meet wait,       \
                          exchange_delays(fortran_comm(COMM), wait, fortran_error(IERR)))
// NOLINTEND(bugprone-macro-parentheses)

#define P1 (Word a1)
#define A1 (a1)
#define P2 (Word a1, Word a2)
#define A2 (a1, a2)
#define P3 (Word a1, Word a2, Word a3)
#define A3 (a1, a2, a3)
#define P4 (Word a1, Word a2, Word a3, Word a4)
#define A4 (a1, a2, a3, a4)
#define P5 (Word a1, Word a2, Word a3, Word a4, Word a5)
#define A5 (a1, a2, a3, a4, a5)
#define P6 (Word a1, Word a2, Word a3, Word a4, Word a5, Word a6)
#define A6 (a1, a2, a3, a4, a5, a6)
#define P7 (Word a1, Word a2, Word a3, Word a4, Word a5, Word a6, Word a7)
#define A7 (a1, a2, a3, a4, a5, a6, a7)
#define P8 (Word a1, Word a2, Word a3, Word a4, Word a5, Word a6, Word a7, Word a8)
#define A8 (a1, a2, a3, a4, a5, a6, a7, a8)
#define P9 (Word a1, Word a2, Word a3, Word a4, Word a5, Word a6, Word a7, Word a8, Word a9)
#define A9 (a1, a2, a3, a4, a5, a6, a7, a8, a9)
#define P10 \
  (Word a1, Word a2, Word a3, Word a4, Word a5, Word a6, Word a7, Word a8, Word a9, Word a10)
#define A10 (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)
#define P13                                                                                   \
  (Word a1, Word a2, Word a3, Word a4, Word a5, Word a6, Word a7, Word a8, Word a9, Word a10, \
   Word a11, Word a12, Word a13)
#define A13 (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)
#define P12                                                                                   \
  (Word a1, Word a2, Word a3, Word a4, Word a5, Word a6, Word a7, Word a8, Word a9, Word a10, \
   Word a11, Word a12)
#define A12 (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)

// Point to point: completion and blocking receives and sends.
CPROF_MPI_WAIT(MPI_Wait, P2, A2)
CPROF_MPI_WAIT(MPI_Waitall, P3, A3)
CPROF_MPI_WAIT(MPI_Waitany, P4, A4)
CPROF_MPI_WAIT(MPI_Waitsome, P5, A5)
CPROF_MPI_WAIT(MPI_Recv, P7, A7)
CPROF_MPI_WAIT(MPI_Mrecv, P5, A5)
CPROF_MPI_WAIT(MPI_Probe, P4, A4)
CPROF_MPI_WAIT(MPI_Mprobe, P5, A5)
CPROF_MPI_WAIT(MPI_Send, P6, A6)
CPROF_MPI_WAIT(MPI_Ssend, P6, A6)
CPROF_MPI_WAIT(MPI_Sendrecv, P12, A12)
CPROF_MPI_WAIT(MPI_Sendrecv_replace, P9, A9)
// Collectives.
CPROF_MPI_MEET(MPI_Barrier, P1, A1, a1)
CPROF_MPI_WAIT(MPI_Bcast, P5, A5)
CPROF_MPI_WAIT(MPI_Reduce, P7, A7)
CPROF_MPI_MEET(MPI_Allreduce, P6, A6, a6)
CPROF_MPI_MEET(MPI_Reduce_scatter, P6, A6, a6)
CPROF_MPI_MEET(MPI_Reduce_scatter_block, P6, A6, a6)
CPROF_MPI_WAIT(MPI_Scan, P6, A6)
CPROF_MPI_WAIT(MPI_Exscan, P6, A6)
CPROF_MPI_WAIT(MPI_Gather, P8, A8)
CPROF_MPI_WAIT(MPI_Gatherv, P9, A9)
CPROF_MPI_MEET(MPI_Allgather, P7, A7, a7)
CPROF_MPI_MEET(MPI_Allgatherv, P8, A8, a8)
CPROF_MPI_WAIT(MPI_Scatter, P8, A8)
CPROF_MPI_WAIT(MPI_Scatterv, P9, A9)
CPROF_MPI_MEET(MPI_Alltoall, P7, A7, a7)
CPROF_MPI_MEET(MPI_Alltoallv, P9, A9, a9)
CPROF_MPI_MEET(MPI_Alltoallw, P9, A9, a9)
// One-sided synchronization.
CPROF_MPI_WAIT(MPI_Win_fence, P2, A2)
CPROF_MPI_WAIT(MPI_Win_wait, P1, A1)
CPROF_MPI_WAIT(MPI_Win_complete, P1, A1)
// Sends that start another rank's progress without blocking this one.
CPROF_MPI_WAKE(MPI_Isend, P7, A7)
CPROF_MPI_WAKE(MPI_Issend, P7, A7)
CPROF_MPI_WAKE(MPI_Ibsend, P7, A7)
CPROF_MPI_WAKE(MPI_Irsend, P7, A7)
CPROF_MPI_WAKE(MPI_Bsend, P6, A6)
CPROF_MPI_WAKE(MPI_Rsend, P6, A6)

// The same calls from Fortran (mpif.h, `use mpi`, `use mpi_f08`): one argument more each.
CPROF_MPI_FORTRAN_WAIT(wait, WAIT, P3, A3)
CPROF_MPI_FORTRAN_WAIT(waitall, WAITALL, P4, A4)
CPROF_MPI_FORTRAN_WAIT(waitany, WAITANY, P5, A5)
CPROF_MPI_FORTRAN_WAIT(waitsome, WAITSOME, P6, A6)
CPROF_MPI_FORTRAN_WAIT(recv, RECV, P8, A8)
CPROF_MPI_FORTRAN_WAIT(mrecv, MRECV, P6, A6)
CPROF_MPI_FORTRAN_WAIT(probe, PROBE, P5, A5)
CPROF_MPI_FORTRAN_WAIT(mprobe, MPROBE, P6, A6)
CPROF_MPI_FORTRAN_WAIT(send, SEND, P7, A7)
CPROF_MPI_FORTRAN_WAIT(ssend, SSEND, P7, A7)
CPROF_MPI_FORTRAN_WAIT(sendrecv, SENDRECV, P13, A13)
CPROF_MPI_FORTRAN_WAIT(sendrecv_replace, SENDRECV_REPLACE, P10, A10)
CPROF_MPI_FORTRAN_MEET(barrier, BARRIER, P2, A2, a1, a2)
CPROF_MPI_FORTRAN_WAIT(bcast, BCAST, P6, A6)
CPROF_MPI_FORTRAN_WAIT(reduce, REDUCE, P8, A8)
CPROF_MPI_FORTRAN_MEET(allreduce, ALLREDUCE, P7, A7, a6, a7)
CPROF_MPI_FORTRAN_MEET(reduce_scatter, REDUCE_SCATTER, P7, A7, a6, a7)
CPROF_MPI_FORTRAN_MEET(reduce_scatter_block, REDUCE_SCATTER_BLOCK, P7, A7, a6, a7)
CPROF_MPI_FORTRAN_WAIT(scan, SCAN, P7, A7)
CPROF_MPI_FORTRAN_WAIT(exscan, EXSCAN, P7, A7)
CPROF_MPI_FORTRAN_WAIT(gather, GATHER, P9, A9)
CPROF_MPI_FORTRAN_WAIT(gatherv, GATHERV, P10, A10)
CPROF_MPI_FORTRAN_MEET(allgather, ALLGATHER, P8, A8, a7, a8)
CPROF_MPI_FORTRAN_MEET(allgatherv, ALLGATHERV, P9, A9, a8, a9)
CPROF_MPI_FORTRAN_WAIT(scatter, SCATTER, P9, A9)
CPROF_MPI_FORTRAN_WAIT(scatterv, SCATTERV, P10, A10)
CPROF_MPI_FORTRAN_MEET(alltoall, ALLTOALL, P8, A8, a7, a8)
CPROF_MPI_FORTRAN_MEET(alltoallv, ALLTOALLV, P10, A10, a9, a10)
CPROF_MPI_FORTRAN_MEET(alltoallw, ALLTOALLW, P10, A10, a9, a10)
CPROF_MPI_FORTRAN_WAIT(win_fence, WIN_FENCE, P3, A3)
CPROF_MPI_FORTRAN_WAIT(win_wait, WIN_WAIT, P2, A2)
CPROF_MPI_FORTRAN_WAIT(win_complete, WIN_COMPLETE, P2, A2)
CPROF_MPI_FORTRAN_WAKE(isend, ISEND, P8, A8)
CPROF_MPI_FORTRAN_WAKE(issend, ISSEND, P8, A8)
CPROF_MPI_FORTRAN_WAKE(ibsend, IBSEND, P8, A8)
CPROF_MPI_FORTRAN_WAKE(irsend, IRSEND, P8, A8)
CPROF_MPI_FORTRAN_WAKE(bsend, BSEND, P7, A7)
CPROF_MPI_FORTRAN_WAKE(rsend, RSEND, P7, A7)
