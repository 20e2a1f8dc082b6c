#pragma once
// What the blocking-call interposers (blocking_interpose.cpp) offer the rest of the
// causal runtime: a system call with the futex delay rules, and what it counted.

#include "causal/runtime/futex_rules.h"

namespace cprof::causal {

// Performs system call `number` with arguments a[0..5] through libc's syscall() (result
// and errno as it returns them), applying the delay rules to futex calls
// (futex_rules.h): a wake pays what the caller owes first; a wait remembers the global
// count, then is credited (woken), pays (timeout, EINTR) or neither (EAGAIN). Anything
// else is forwarded plainly. Counted in futex_counts() under `path`. Async-signal-safe
// (the Syscall User Dispatch handler calls it).
long syscall_with_futex_rules(long number, const long a[6], FutexPath path);
FutexCounts& futex_counts();

}  // namespace cprof::causal
