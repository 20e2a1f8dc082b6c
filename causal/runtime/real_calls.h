#pragma once
// The next definitions (RTLD_NEXT) of functions the causal runtime interposes, for the
// runtime's own use: its sleeps must not go through its own nanosleep interposer.

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <cstdint>

#include "causal/clock.h"
#include "causal/runtime/futex_rules.h"

namespace cprof::causal {

// Resolves every interposed function's next definition (the library constructor calls it
// before anything runs, so no interposer resolves lazily inside a handler).
void resolve_real_calls();

// A Sleeper on the real nanosleep (clock.h contract: async-signal-safe, errno kept).
Sleeper real_sleeper();
int join_thread(pthread_t thread, void** result);

// Performs system call `number` with arguments a[0..5] through libc's syscall() (result
// and errno as it returns them), applying the delay rules to futex calls
// (futex_rules.h): a wake pays what the caller owes first; a wait remembers the global
// count, then is credited (woken), pays (timeout, EINTR) or neither (EAGAIN). Anything
// else is forwarded plainly. Counted in futex_counts() under `path`. Async-signal-safe
// (the Syscall User Dispatch handler calls it).
long syscall_with_futex_rules(long number, const long a[6], FutexPath path);
FutexCounts& futex_counts();

// libc's own, bypassing the runtime's interposers (async-signal-safe).
long real_syscall6(long number, long a0, long a1, long a2, long a3, long a4, long a5);
int real_sigaction_call(int sig, const struct sigaction* action, struct sigaction* old);

}  // namespace cprof::causal
