#pragma once
// One word of the sampled thread's memory that an unwinder has already found readable
// (inside the live stack, or in a mapped module). It may lie in another frame's red zone
// or padding (a corrupt CFA, garbage taken for a frame pointer): valid memory that
// AddressSanitizer would report, so the read is not instrumented, and it is a plain
// unaligned load, not an intercepted memcpy. Async-signal-safe.

#include <cstdint>

namespace cprof::sampler {

using UnalignedWord = uint64_t __attribute__((aligned(1)));

__attribute__((no_sanitize("address"))) inline uint64_t load_word(uint64_t addr) {
  return *reinterpret_cast<const volatile UnalignedWord*>(addr);
}

}  // namespace cprof::sampler
