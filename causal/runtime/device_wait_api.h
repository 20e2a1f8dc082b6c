/* The causal runtime's entry point for the GPU tools libraries (libcprof-hsa,
   libcprof-cuda): they tell it when a thread starts and stops waiting for the GPU (a
   synchronize, a signal wait), so that the wait counts as blocked and not as CPU work
   of the line that waits (docs/causal.md "Waiting for the GPU").

   libcprof-causal.so exports cprof_device_wait_api_v1 (exports.map); a tools library looks
   it up once with dlsym(RTLD_DEFAULT, CPROF_DEVICE_WAIT_API_SYMBOL) and does nothing when
   it is absent (sample-run, or no profiler at all). begin/end are called on the waiting
   thread, may nest (a runtime call inside another), must pair up, keep errno, and are
   no-ops on threads the runtime does not know. */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cprof_device_wait_api {
  uint32_t version; /* 1 */
  void (*begin)(void);
  void (*end)(void);
};

#define CPROF_DEVICE_WAIT_API_SYMBOL "cprof_device_wait_api_v1"
typedef const struct cprof_device_wait_api* (*cprof_device_wait_api_fn)(void);

#ifdef __cplusplus
}
#endif
