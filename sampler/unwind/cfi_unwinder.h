#pragma once
// The fast DWARF unwinder: walks a stack with the per-module CfiTables (cfi_table.h) the
// ModuleTable parsed from .eh_frame, in the style of async-profiler's FrameDesc walk. Per
// frame: find the module, binary-search its rows, compute the CFA from rsp or rbp, load
// the return address at CFA - 8 and the saved rbp. A frame whose CFI the table does not
// model (kComplex: CFA expressions, signal trampolines, ...; kNoCfi: no FDE; a PC outside
// every module) is handed to libunwind with the registers recovered so far, and libunwind
// unwinds the rest of that stack, so the result is the frames libunwind alone would give.
// docs/unwinding.md ("Fast DWARF unwinder") has the table format and the hand-off rules.
//
// Frame convention: as unwinder.h (frames[0] = the exact PC, then return addresses).
//
// Signal-safety contract: unwind_with_cfi() is async-signal-safe and re-entrant across
// threads: no allocation, no locks, no system calls on its own path (the libunwind
// fallback has the caveats unwinder.h lists for LibunwindUnwinder::unwind). Every stack
// read is checked against `stack` (clamped to the live part above the interrupted sp), so
// a corrupt stack pointer, CFA or return address ends the stack early instead of faulting.
// It may also be called from a normal context (gpu::LaunchStacks does).

#include <ucontext.h>

#include <cstddef>
#include <cstdint>

#include "sampler/unwind/module_table.h"
#include "sampler/unwind/stack_bounds.h"

namespace cprof::sampler {

class LibunwindUnwinder;

// What one walk did (for tests and benchmarks).
struct CfiWalkInfo {
  size_t table_frames = 0;  // frames produced from CfiTables
  bool handed_off = false;  // libunwind unwound the rest, from the first complex frame
  bool restarted = false;   // libunwind unwound the whole stack (see docs: PC vs PC - 1)
};

// Unwinds `uc` with `modules`' CfiTables. `fallback` (may be null: the walk then stops at
// the first frame it cannot unwind itself) takes over at such a frame. Returns the number
// of frames written (at most `max`; 0 only if `uc` is null or `max` is 0).
size_t unwind_with_cfi(const ModuleSnapshot& modules, const LibunwindUnwinder* fallback,
                       const ucontext_t* uc, StackBounds stack, uint64_t* frames, size_t max,
                       CfiWalkInfo* info = nullptr) noexcept;

}  // namespace cprof::sampler
