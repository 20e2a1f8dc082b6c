// A shared library with the program's hot code, for --binary-scope: lib_user.cpp calls it.
#include <cstdint>

extern "C" __attribute__((visibility("default"))) uint64_t lib_work(uint64_t n) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) {
    x += i * i;  // LIB_WORK
    asm volatile("" : "+r"(x));
  }
  return x;
}
