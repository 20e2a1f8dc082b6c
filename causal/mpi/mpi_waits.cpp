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

#include <atomic>
#include <cstdint>

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
#define CPROF_MPI_FORTRAN(NAME, PARAMS, ARGS, BEFORE)             \
  CPROF_MPI_EXPORT void NAME PARAMS {                             \
    static std::atomic<void*> slot{nullptr};                      \
    auto f = reinterpret_cast<void(*) PARAMS>(real(slot, #NAME)); \
    if (f == nullptr) return;                                     \
    BEFORE;                                                       \
    f ARGS;                                                       \
  }
// The Fortran names of MPI_Stem (stem, STEM: lower and upper case), one argument more.
#define CPROF_MPI_FORTRAN_NAMES(stem, STEM, PARAMS, ARGS, BEFORE) \
  CPROF_MPI_FORTRAN(mpi_##stem##_, PARAMS, ARGS, BEFORE)          \
  CPROF_MPI_FORTRAN(mpi_##stem, PARAMS, ARGS, BEFORE)             \
  CPROF_MPI_FORTRAN(mpi_##stem##__, PARAMS, ARGS, BEFORE)         \
  CPROF_MPI_FORTRAN(MPI_##STEM, PARAMS, ARGS, BEFORE)             \
  CPROF_MPI_FORTRAN(ompi_##stem##_f, PARAMS, ARGS, BEFORE)
#define CPROF_MPI_FORTRAN_WAIT(stem, STEM, PARAMS, ARGS) \
  CPROF_MPI_FORTRAN_NAMES(stem, STEM, PARAMS, ARGS, Wait wait)
#define CPROF_MPI_FORTRAN_WAKE(stem, STEM, PARAMS, ARGS) \
  CPROF_MPI_FORTRAN_NAMES(stem, STEM, PARAMS, ARGS, wake())
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
CPROF_MPI_WAIT(MPI_Barrier, P1, A1)
CPROF_MPI_WAIT(MPI_Bcast, P5, A5)
CPROF_MPI_WAIT(MPI_Reduce, P7, A7)
CPROF_MPI_WAIT(MPI_Allreduce, P6, A6)
CPROF_MPI_WAIT(MPI_Reduce_scatter, P6, A6)
CPROF_MPI_WAIT(MPI_Reduce_scatter_block, P6, A6)
CPROF_MPI_WAIT(MPI_Scan, P6, A6)
CPROF_MPI_WAIT(MPI_Exscan, P6, A6)
CPROF_MPI_WAIT(MPI_Gather, P8, A8)
CPROF_MPI_WAIT(MPI_Gatherv, P9, A9)
CPROF_MPI_WAIT(MPI_Allgather, P7, A7)
CPROF_MPI_WAIT(MPI_Allgatherv, P8, A8)
CPROF_MPI_WAIT(MPI_Scatter, P8, A8)
CPROF_MPI_WAIT(MPI_Scatterv, P9, A9)
CPROF_MPI_WAIT(MPI_Alltoall, P7, A7)
CPROF_MPI_WAIT(MPI_Alltoallv, P9, A9)
CPROF_MPI_WAIT(MPI_Alltoallw, P9, A9)
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
CPROF_MPI_FORTRAN_WAIT(barrier, BARRIER, P2, A2)
CPROF_MPI_FORTRAN_WAIT(bcast, BCAST, P6, A6)
CPROF_MPI_FORTRAN_WAIT(reduce, REDUCE, P8, A8)
CPROF_MPI_FORTRAN_WAIT(allreduce, ALLREDUCE, P7, A7)
CPROF_MPI_FORTRAN_WAIT(reduce_scatter, REDUCE_SCATTER, P7, A7)
CPROF_MPI_FORTRAN_WAIT(reduce_scatter_block, REDUCE_SCATTER_BLOCK, P7, A7)
CPROF_MPI_FORTRAN_WAIT(scan, SCAN, P7, A7)
CPROF_MPI_FORTRAN_WAIT(exscan, EXSCAN, P7, A7)
CPROF_MPI_FORTRAN_WAIT(gather, GATHER, P9, A9)
CPROF_MPI_FORTRAN_WAIT(gatherv, GATHERV, P10, A10)
CPROF_MPI_FORTRAN_WAIT(allgather, ALLGATHER, P8, A8)
CPROF_MPI_FORTRAN_WAIT(allgatherv, ALLGATHERV, P9, A9)
CPROF_MPI_FORTRAN_WAIT(scatter, SCATTER, P9, A9)
CPROF_MPI_FORTRAN_WAIT(scatterv, SCATTERV, P10, A10)
CPROF_MPI_FORTRAN_WAIT(alltoall, ALLTOALL, P8, A8)
CPROF_MPI_FORTRAN_WAIT(alltoallv, ALLTOALLV, P10, A10)
CPROF_MPI_FORTRAN_WAIT(alltoallw, ALLTOALLW, P10, A10)
CPROF_MPI_FORTRAN_WAIT(win_fence, WIN_FENCE, P3, A3)
CPROF_MPI_FORTRAN_WAIT(win_wait, WIN_WAIT, P2, A2)
CPROF_MPI_FORTRAN_WAIT(win_complete, WIN_COMPLETE, P2, A2)
CPROF_MPI_FORTRAN_WAKE(isend, ISEND, P8, A8)
CPROF_MPI_FORTRAN_WAKE(issend, ISSEND, P8, A8)
CPROF_MPI_FORTRAN_WAKE(ibsend, IBSEND, P8, A8)
CPROF_MPI_FORTRAN_WAKE(irsend, IRSEND, P8, A8)
CPROF_MPI_FORTRAN_WAKE(bsend, BSEND, P7, A7)
CPROF_MPI_FORTRAN_WAKE(rsend, RSEND, P7, A7)
