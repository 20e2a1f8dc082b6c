// A library whose constructor starts a thread. It is loaded as a dependency of the main
// program, so its constructor runs before the preloaded runtime's: the thread already
// exists when sampling starts and must be found in /proc.
#include <pthread.h>

#include "spin.h"

extern "C" __attribute__((noinline)) void early_work() { SPIN_FOR_MS(300); }

static pthread_t g_thread;

static void* early_body(void*) {
  early_work();
  return nullptr;
}

__attribute__((constructor)) static void start_early_thread() {
  pthread_create(&g_thread, nullptr, early_body, nullptr);
}

extern "C" void join_early_thread() { pthread_join(g_thread, nullptr); }
