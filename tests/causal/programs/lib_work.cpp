// A shared library with the program's hot code, for --binary-scope: lib_user.cpp calls it.
#include <pthread.h>

#include <cstdint>

namespace {
volatile uint64_t g_calls = 0;
}  // namespace

extern "C" __attribute__((visibility("default"))) uint64_t lib_work(uint64_t n) {
  g_calls = g_calls + 1;  // LIB_WORK_CALL: once per call, a --progress point in a library
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) {
    x += i * i;  // LIB_WORK
    asm volatile("" : "+r"(x));
  }
  return x;
}

// All of the work on a thread the library starts, whose stack holds none of the
// program's own code: automatic selection in the default scope finds nothing to select.
namespace {
void* work_rounds(void* rounds) {
  uint64_t sum = 0;
  for (uintptr_t i = 0; i < reinterpret_cast<uintptr_t>(rounds); ++i) sum += lib_work(300000);
  return reinterpret_cast<void*>(static_cast<uintptr_t>(sum & 1));
}
}  // namespace

extern "C" __attribute__((visibility("default"))) uint64_t lib_work_on_own_thread(uint64_t rounds) {
  pthread_t t;
  if (pthread_create(&t, nullptr, work_rounds, reinterpret_cast<void*>(rounds)) != 0) return 0;
  void* result = nullptr;
  pthread_join(t, &result);
  return reinterpret_cast<uintptr_t>(result);
}
