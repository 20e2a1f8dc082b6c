#pragma once
// A leaf with no calls and no data references: its machine code runs the same from any
// address, so the test programs that run code from a copy (remapped_text: a second
// mapping of the text; jit_code: bytes copied to anonymous memory, as a JIT's) copy it.
#include <cstdint>

extern "C" __attribute__((noinline)) inline uint64_t movable_spin(uint64_t n) {
  uint64_t x = 1;
  for (uint64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + i;
    asm volatile("" : "+r"(x));
  }
  return x;
}
