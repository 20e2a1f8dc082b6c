// pthread_setname_np(), interposed: a thread renamed after the writer wrote its thread
// record (a JVM and Rust's std name their threads once they run) has its new name written
// at the writer's next drain, not only when it ends, so that a program killed later (or
// SIGKILLed) still shows it. The call is forwarded as it is; only a rename that succeeded
// is told to the runtime, which sets one flag (the drain reads the names).

#include <pthread.h>

#include <atomic>

#include "sampler/runtime/next_definition.h"
#include "sampler/runtime/runtime.h"

namespace {

using SetnameFn = int (*)(pthread_t, const char*);
std::atomic<SetnameFn> g_setname{nullptr};

}  // namespace

extern "C" __attribute__((visibility("default"))) int pthread_setname_np(pthread_t thread,
                                                                          const char* name) {
  const auto next = cprof::sampler::next_definition(g_setname, "pthread_setname_np");
  const int rc = next(thread, name);
  if (rc == 0) {
    if (cprof::sampler::Runtime* rt = cprof::sampler::Runtime::instance()) rt->thread_renamed();
  }
  return rc;
}
