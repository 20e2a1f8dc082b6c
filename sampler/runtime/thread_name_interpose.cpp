// pthread_setname_np(), interposed: a thread renamed after the writer wrote its thread
// record (a JVM and Rust's std name their threads once they run) has its new name written
// at the writer's next drain, not only when it ends, so that a program killed later (or
// SIGKILLed) still shows it. The call is forwarded as it is; only a rename that succeeded
// is told to the runtime, which sets one flag (the drain reads the names).

#include <pthread.h>

#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"

CPROF_EXPORT int pthread_setname_np(pthread_t thread, const char* name) {
  const auto next = cprof::real::pthread_setname_np();
  const int rc = next(thread, name);
  if (rc == 0) {
    if (cprof::sampler::Runtime* rt = cprof::sampler::Runtime::instance()) rt->thread_renamed();
  }
  return rc;
}
