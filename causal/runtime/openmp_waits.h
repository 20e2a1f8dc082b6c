#pragma once
// Waits inside an OpenMP runtime, marked on the waiting thread (docs/causal.md "Waits that
// spin"). OpenMP runtimes spin before they sleep in the kernel, so a thread waiting at a
// barrier, at the thread pool's dock or for a critical section is busy to the sampler.
// Two sources mark where each wait begins and ends (DelayAccounting::runtime_wait_begin /
// _end): GCC's libgomp through its interposed GOMP_* entry points (openmp_interpose.cpp)
// and LLVM's libomp through its tool interface, OMPT (ompt_tool.cpp). This file holds
// what both share: the marking rules on the calling thread, the runtime's text (where
// spinning happens, for the sampling step) and the counters of the end-of-run message.
//
// Signal-safety contract: runtime_code(), system_code() and note_runtime_wait_sample()
// are async-signal-safe (atomics and data written before runtime_code() is published).
// The rest runs in the interposed calls and callbacks.

#include <atomic>
#include <cstdint>
#include <span>
#include <string>

#include "causal/runtime/calling_thread.h"
#include "causal/sample_step.h"

namespace cprof::causal {

// The text of the OpenMP runtime whose waits are marked, once one published it; empty
// before. The first runtime to publish wins (a process normally has one).
CodeRange runtime_code();
// Publishes the executable segment of the loaded object that holds `address`, and with
// it libc's and the vDSO's (system_code()).
void publish_runtime_code(const void* address);
// The text of libc and of the vDSO, which the runtime calls while it waits (sched_yield,
// clock reads): published with runtime_code(), empty before.
std::span<const CodeRange> system_code();

// The next definition of `name` after this library (an OpenMP runtime's function this
// library interposes): RTLD_NEXT, or, for a runtime that a dlopen'ed library brought in
// with RTLD_LOCAL (not in the global scope RTLD_NEXT searches), the first other loaded
// object that defines it. Aborts with a message when there is none (it was called, so
// one exists).
void* next_openmp_definition(const char* name);

// The cached next definition of `name`, looked up on first use; publishes the runtime's
// text (publish_runtime_code) on the way.
template <typename Fn>
Fn resolve_next(std::atomic<Fn>& slot, const char* name) {
  Fn fn = slot.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<Fn>(next_openmp_definition(name));
    publish_runtime_code(reinterpret_cast<const void*>(fn));
    slot.store(fn, std::memory_order_release);
  }
  return fn;
}

// CPROF_CAUSAL_OPENMP_WAITS=off: forward without marking waits (to compare).
bool marking_openmp_waits();

// The calling thread, or nothing (a thread the runtime does not know, or marking off).
CallingThread openmp_thread();

// The rules, for the thread `c` (nothing happens for an empty one):
// the thread begins to wait for other threads of its team (counted for the message);
void openmp_wait_begin(const CallingThread& c);
// another thread released it;
void openmp_wait_end(const CallingThread& c);
// it is about to release others (forking a team, leaving a critical section).
void openmp_wake_others(const CallingThread& c);

// The waits of the OpenMP runtime in the process are not (all) marked, and why: said in
// the end-of-run message. `why` must be a string literal (kept, not copied).
void note_openmp_waits_unmarked(const char* why);

// A sample fell inside a runtime wait, in the runtime's code: the thread was spinning.
void note_runtime_wait_sample();

// The end-of-run info message, or "" when no wait was seen and none went unmarked. The
// tests parse its "OpenMP waits seen: N" prefix and "M samples".
std::string runtime_wait_summary();

}  // namespace cprof::causal
