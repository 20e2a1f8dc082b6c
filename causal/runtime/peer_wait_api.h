/* The causal runtime's entry point for the MPI wrappers (libcprof-causal-mpi.so, which
   causal-run preloads with the runtime for an MPI job): they tell it when a thread enters
   and leaves an MPI call that waits for other ranks, so that the wait counts as blocked
   and not as CPU work of the line that waits, and when it is about to let another rank
   go on (a send), so that it pays what it owes first (docs/causal.md "MPI").

   libcprof-causal.so exports cprof_peer_wait_api_v1 (exports.map); the wrappers look it
   up once with dlsym(RTLD_DEFAULT, CPROF_PEER_WAIT_API_SYMBOL) and only forward when it
   is absent. begin/end are called on the waiting thread, may nest, must pair up, keep
   errno, and are no-ops on threads the runtime does not know. */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exchanged across hosts: [0] the host's global delay count, [1] 1 once the host's
   experiments started (a rank of it saw progress: a host whose ranks have no progress
   point of their own starts with the others). */
#define CPROF_EXCHANGED_VALUES 2

struct cprof_peer_wait_api {
  uint32_t version; /* 2 */
  void (*begin)(void);
  void (*end)(void);
  void (*wake)(void);
  /* Version 2: what the hosts exchange at a collective (the largest of each value over
     the communicator's ranks). out: this host's values; in, on a thread inside begin/end:
     the job's, with the time the thread has waited in the call so far. */
  void (*exchange_out)(uint64_t values[CPROF_EXCHANGED_VALUES]);
  void (*exchange_in)(const uint64_t values[CPROF_EXCHANGED_VALUES], uint64_t waited_ns);
};

#define CPROF_PEER_WAIT_API_SYMBOL "cprof_peer_wait_api_v1"
/* "1": every rank as if on a host of its own (a test of delays across hosts on one
   machine): the runtime maps a page per rank, and the wrappers exchange counts. */
#define CPROF_HOST_PER_RANK_ENV "CPROF_CAUSAL_HOST_PER_RANK"
typedef const struct cprof_peer_wait_api* (*cprof_peer_wait_api_fn)(void);

#ifdef __cplusplus
}
#endif
