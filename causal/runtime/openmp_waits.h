#pragma once
// Waits inside libgomp (OpenMP), seen through its public entry points (openmp_interpose.cpp;
// docs/causal.md "Waits that spin"). libgomp spins before it sleeps in the kernel, so a
// thread waiting at a barrier, at the thread pool's dock or for a critical section is busy
// to the sampler; the interposed GOMP_* calls mark where each wait begins and ends
// (DelayAccounting::runtime_wait_begin/_end) and this file keeps what the sampling step
// needs (the runtime's text, where spinning happens) and the counters of the end-of-run
// message.
//
// Signal-safety contract: runtime_code() and note_runtime_wait_sample() are
// async-signal-safe (atomics only).

#include <cstdint>
#include <string>

#include "causal/sample_step.h"

namespace cprof::causal {

// The text of the library that defines the GOMP_* entry points, once one was called;
// empty before.
CodeRange runtime_code();

// A sample fell inside a runtime wait, in the runtime's code: the thread was spinning.
void note_runtime_wait_sample();

// The end-of-run info message, or "" when no wait was seen. The tests parse its
// "OpenMP waits seen: N" prefix and "M samples".
std::string runtime_wait_summary();

}  // namespace cprof::causal
