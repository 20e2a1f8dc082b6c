// A library that plugin_host.cpp loads with dlopen after it started: causal-run knows it
// only by its path (--binary-scope PATH), resolves its lines in the file, and the runtime
// attaches them, and patches its --progress place, once the loader has mapped it.
#include <cstdint>

namespace {
volatile uint64_t g_items = 0;
}

extern "C" __attribute__((visibility("default"), noinline)) uint64_t plugin_work(uint64_t seed) {
  uint64_t x = seed;
  for (uint64_t i = 0; i < 200000; ++i) {
    x = x * 6364136223846793005ULL + i;  // WORK_LINE
  }
  g_items = g_items + 1;  // ITEM_LINE
  return x;
}
