#pragma once
// The runtime's half of counting progress in the program's code (causal/patch_plan.h):
// a trampoline page near the site (within a 32-bit jump), a counter on a data page beside
// it, and the jump written over the window. Done at start, before the program's main and
// while the process has one thread, so no thread can be running the bytes being changed
// (refused otherwise: the caller then counts with the kernel), or in a library just
// loaded by dlopen.
//
// Normal context only: maps memory and changes page protections.

#include <atomic>
#include <cstdint>
#include <string>

#include "causal/patch_plan.h"

namespace cprof::causal {

// Why no thread can be running the bytes being changed: the process has one thread (at
// start: checked), or the code was loaded just now (a dlopen that returned: only a thread
// its constructors started could be in it).
enum class CodeState { at_start, just_loaded };

// Patches the window at `site` (run-time address) to count into the returned counter;
// nullptr and `error` (one phrase) when it cannot: not x86-64, more than one thread at
// start, the bytes there are not the plan's, no free page in reach, or the page
// protections refused. Trampolines are never unmapped: the program's code jumps into
// them until it exits (or, in a library, until a dlclose; the page stays).
std::atomic<uint64_t>* patch_counter(uint64_t site, const PatchPlan& plan, std::string& error,
                                     CodeState state);

}  // namespace cprof::causal
