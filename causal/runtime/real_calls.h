#pragma once
// The next definitions (RTLD_NEXT) of functions the causal runtime interposes, for the
// runtime's own use: its sleeps must not go through its own nanosleep interposer.

#include <pthread.h>
#include <time.h>

#include <cstdint>

#include "causal/clock.h"

namespace cprof::causal {

// Resolves every interposed function's next definition (the library constructor calls it
// before anything runs, so no interposer resolves lazily inside a handler).
void resolve_real_calls();

// A Sleeper on the real nanosleep (clock.h contract: async-signal-safe, errno kept).
Sleeper real_sleeper();
int join_thread(pthread_t thread, void** result);

}  // namespace cprof::causal
