// serial.cpp's loop with a progress point through Coz's ABI, as coz.h's COZ_PROGRESS
// does it: the counter is looked up once with _coz_get_counter (found through dlsym, so
// the program runs without a profiler too) and incremented with a relaxed atomic add.
// The declarations below are written for this test from the ABI, not copied.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

struct CozCounterAbi {  // coz_counter_t
  size_t count;
  size_t backoff;
};
using GetCounter = CozCounterAbi* (*)(int type, const char* name);
constexpr int kThroughput = 1;

CozCounterAbi* lookup(const char* name) {
  auto fn = reinterpret_cast<GetCounter>(dlsym(RTLD_DEFAULT, "_coz_get_counter"));
  return fn != nullptr ? fn(kThroughput, name) : nullptr;
}

void coz_progress(const char* name) {
  static CozCounterAbi* counter = lookup(name);
  if (counter != nullptr) __atomic_add_fetch(&counter->count, 1, __ATOMIC_RELAXED);
}

constexpr uint64_t kUnit = 150000;

__attribute__((noinline)) uint64_t spin(uint64_t n) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) {
    x += i * i;
    asm volatile("" : "+r"(x));
  }
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 4000;
  uint64_t sum = 0;
  for (long i = 0; i < iterations; ++i) {
    sum += spin(2 * kUnit);  // LINE_A
    sum += spin(kUnit);      // LINE_B
    coz_progress("coz_serial.cpp:iteration");
  }
  std::printf("%llu\n", static_cast<unsigned long long>(sum & 0xff));
  return 0;
}
