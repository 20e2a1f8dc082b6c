#pragma once
// Whether a --progress place can be counted in the program's own code, and how
// (causal/patch_plan.h): the launcher reads the function holding the place from the ELF
// file, decodes it with Capstone, and moves the fewest whole instructions from the place
// on that make the 5 bytes a jump needs. It refuses where moving them could change what
// the program does:
//   - an instruction of the window other than the last one branches, calls, returns or
//     traps, or the last one is an indirect call or a loop/jrcxz branch;
//   - a direct branch of the function (or of its .cold part) lands inside the window, or
//     the function has an indirect jump (a switch's table could land anywhere) and the
//     window is more than one instruction;
//   - the window runs past the function's end, or the function does not decode to the
//     place as an instruction boundary;
//   - the file is not x86-64.
// An endbr64 at the place (a function's first line) is left where it is and the window
// starts after it: an indirect call must still find it there.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "causal/patch_plan.h"

namespace cprof::causal {

struct PlannedPatch {
  uint64_t site = 0;  // ELF address of the window: the place, or the place after an endbr64
  PatchPlan plan;
};

// The plan for the place at ELF address `address` in the file at `elf_path`; nullopt and
// `why` (a phrase) when its code cannot be moved.
std::optional<PlannedPatch> plan_patch(const std::string& elf_path, uint64_t address,
                                       std::string& why);

// A --progress place and its plan (none where `why` says why not).
struct PlacePlan {
  uint64_t address = 0;  // the line's first instruction (ELF address)
  std::string module;    // "" for the executable, else the library's path
  std::optional<PlannedPatch> planned;
  std::string why;
};

// Places whose windows would hold another place of the same module (a window starts at
// one line and runs into the next line's first instruction), or overlap another's window,
// lose their plans: that place's instruction would run in the trampoline, where nothing
// counts it, and a kernel counter set on it would break the jump written over it. Both
// are then counted by the kernel.
void drop_overlapping_plans(std::vector<PlacePlan>& places);

// The same decision on a function's code given as bytes: `code` holds the function, from
// ELF address `function_start`; `other_code` (with `other_start`), where given, is code
// whose branches may land in it (its .cold part).
std::optional<PlannedPatch> plan_patch_in(std::span<const uint8_t> code, uint64_t function_start,
                                          uint64_t address, std::span<const uint8_t> other_code,
                                          uint64_t other_start, std::string& why);

}  // namespace cprof::causal
