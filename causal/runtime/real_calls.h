#pragma once
// What the causal runtime calls past its own interposers (and the program's), for its
// own use: its sleeps must not go through its own nanosleep interposer, nor its joins and
// system calls through the delay rules. Built on the table of real functions
// (sampler/runtime/real.h). Async-signal-safe.

#include <pthread.h>
#include <signal.h>

#include "causal/clock.h"

namespace cprof::causal {

// A Sleeper on the real nanosleep (clock.h contract: async-signal-safe, errno kept), with
// the least timer slack while it sleeps.
Sleeper real_sleeper();
int join_thread(pthread_t thread, void** result);

// libc's own, bypassing the runtime's interposers.
long real_syscall6(long number, long a0, long a1, long a2, long a3, long a4, long a5);
int real_sigaction_call(int sig, const struct sigaction* action, struct sigaction* old);

}  // namespace cprof::causal
