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

struct cprof_peer_wait_api {
  uint32_t version; /* 1 */
  void (*begin)(void);
  void (*end)(void);
  void (*wake)(void);
};

#define CPROF_PEER_WAIT_API_SYMBOL "cprof_peer_wait_api_v1"
typedef const struct cprof_peer_wait_api* (*cprof_peer_wait_api_fn)(void);

#ifdef __cplusplus
}
#endif
