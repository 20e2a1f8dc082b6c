#pragma once
// Code a hook runtime moved out of the program's text and runs elsewhere: the causal
// runtime's --progress trampolines (causal/runtime/patched_counters.h), which run the
// first instructions of a line after counting the visit. A sample whose PC is in one has
// no file, no line and no unwind information there: on a line visited every few ns, 96%
// of the samples were "[unknown]" with one frame, and the causal runtime did not see the
// line it experimented on. So the handler unwinds such a sample from the place the
// moved code stands for: the original instruction's address, with the stack pointer the
// program had there (the trampoline moves it over the red zone and pushes the flags).
//
// register_moved_code is normal context, before the code can run (the patch is written
// after it); moved_code_origin is async-signal-safe: a fixed table, published by one
// atomic count, never changed once published.

#include <cstdint>
#include <optional>
#include <span>

namespace cprof::sampler {

// From `offset` bytes into the moved code (until the next row's offset), the program is
// as it would be at `original_offset` bytes past the original code's first byte, with
// its stack pointer `stack_shift` bytes from the original one (negative: below it).
struct MovedCodeRow {
  uint16_t offset = 0;
  uint16_t original_offset = 0;
  int16_t stack_shift = 0;
  bool operator==(const MovedCodeRow&) const = default;
};

inline constexpr size_t kMovedCodeRowsMax = 32;
inline constexpr size_t kMovedCodeMax = 256;

// [start, end) holds code that stands for the code at `original`, by `rows` (sorted by
// offset, the first at 0). False when the table is full or the rows too many (samples
// there then stay unnamed).
bool register_moved_code(uint64_t start, uint64_t end, uint64_t original,
                         std::span<const MovedCodeRow> rows);

struct OriginalPlace {
  uint64_t pc = 0;
  uint64_t sp = 0;
};

// Where a thread at `pc` with stack pointer `sp` stands in the program's own code, when
// `pc` is in moved code; nullopt otherwise. Async-signal-safe.
std::optional<OriginalPlace> moved_code_origin(uint64_t pc, uint64_t sp);

}  // namespace cprof::sampler
