#pragma once
// Whether a binary's functions keep a frame pointer, told from their first instructions:
// `sample-run --unwind fp` walks the chain of saved frame pointers, which code built
// without them (GCC's and Clang's default at -O2) does not leave, and its stacks then stop
// after a frame or two with nothing to show it.

#include <cstddef>
#include <optional>

#include "symbolize/elf/elf_file.h"

namespace cprof::symbolize {

struct FramePointerCount {
  size_t functions = 0;  // examined: function symbols of 16 bytes or more
  // that begin with `push %rbp` (after an endbr64) and set `mov %rsp,%rbp` soon after
  size_t with_frame_pointer = 0;
};

// Counts over at most `limit` function symbols of `file` (.symtab, else .dynsym) whose code
// is in the file. nullopt when it has none (a stripped binary without .dynsym functions).
std::optional<FramePointerCount> count_frame_pointers(const ElfFile& file, size_t limit = 4000);

}  // namespace cprof::symbolize
