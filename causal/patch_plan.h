#pragma once
// Counting a --progress FILE:LINE point's visits in the program's own code, without a
// trap: the first instructions of the line (at least 5 bytes: the window) are moved to a
// trampoline that increments a counter and runs them, and a jump to the trampoline takes
// their place. A visit then costs a locked increment and a few instructions, where a
// uprobe or a hardware breakpoint costs a trap into the kernel (20 us a visit on this
// project's VMs: docs/causal.md, "Counting --progress visits").
//
// The launcher decides what may be moved (launcher/patch_planner.h: it has the
// disassembler and the whole function to check), and writes the plan into the runtime's
// settings as text; the runtime (runtime/patched_counters.h) checks the bytes are still
// those and writes the code. This file is the plan, its text form and the trampoline's
// bytes: plain logic, no system call, x86-64 encodings.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sampler/runtime/moved_code.h"

namespace cprof::causal {

// One instruction of the window and how it moves.
struct PatchStep {
  enum class Kind : char {
    copy = 'p',      // position-independent: copied as it is
    rip_data = 'r',  // a RIP-relative memory operand: its disp32 is rebased
    call = 'c',      // call rel32: the original return address is pushed, then a jump
    jump = 'j',      // jmp rel8/rel32: a jmp rel32 to the same target
    branch = 'b',    // jcc rel8/rel32: a jcc rel32 to the same target, on the same condition
  };
  Kind kind = Kind::copy;
  uint8_t length = 0;        // bytes of the original instruction
  uint8_t disp_offset = 0;   // rip_data: where its disp32 is in the instruction
  uint8_t condition = 0;     // branch: the condition code (the low 4 bits of 0x7X / 0x0F 0x8X)
  int64_t target_delta = 0;  // call, jump, branch: target minus the window's first byte
};

struct PatchPlan {
  std::vector<uint8_t> bytes;    // the window's original bytes (checked before patching)
  std::vector<PatchStep> steps;  // in order; their lengths add up to bytes.size()
};

// The jump written at the site: 5 bytes (jmp rel32); the window holds at least that.
inline constexpr size_t kPatchJumpBytes = 5;

// Text form, for the runtime's settings: "HEXBYTES;STEP,STEP...", a STEP being KIND
// LENGTH[.ARG...]: p5, r7.3 (disp32 at byte 3), c5.-1234 (target delta), j2.40, b6.5.-20
// (condition 5).
std::string format_patch_plan(const PatchPlan& plan);
// nullopt and `error` when the text is not a plan, or its steps do not cover its bytes,
// or a step that leaves the window (call, jump) is not the last.
std::optional<PatchPlan> parse_patch_plan(std::string_view text, std::string& error);

// Where the program is while it runs the trampoline: from `offset` bytes into it (until
// the next row), as at `original_offset` bytes past the site, with the stack pointer
// `stack_shift` bytes from the program's there. A sample taken in the trampoline is
// unwound from that place (sampler/runtime/moved_code.h).
// The sampler's own row (the runtime registers them with it as they are).
using TrampolineRow = sampler::MovedCodeRow;

// The trampoline for `plan` at `site` (run-time address of the window), placed at
// `trampoline`, counting into the 8 bytes at `counter`: the red zone stepped over, the
// flags saved, a locked increment of the counter, the flags and stack restored, the
// window's instructions moved, and a jump back to the first byte after the window (none
// after a call or jump, which leave themselves). nullopt and `error` when an address it
// needs is out of a 32-bit displacement's reach. `rows`, when given, receives the
// trampoline's rows, the first at offset 0.
std::optional<std::vector<uint8_t>> trampoline_code(const PatchPlan& plan, uint64_t site,
                                                    uint64_t trampoline, uint64_t counter,
                                                    std::string& error,
                                                    std::vector<TrampolineRow>* rows = nullptr);

// The bytes written over the window: a jmp rel32 to `trampoline`, then int3 to the end of
// the window (never run: no branch lands inside a window). nullopt when out of reach.
std::optional<std::vector<uint8_t>> site_jump(const PatchPlan& plan, uint64_t site,
                                              uint64_t trampoline);

}  // namespace cprof::causal
