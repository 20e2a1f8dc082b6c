// Faults in fresh pages in touch_pages, so page-fault counters have something to count.
#include <sys/mman.h>

#include <cstdio>

#include "spin.h"

extern "C" __attribute__((noinline)) void touch_pages() {
  for (int round = 0; round < 40; ++round) {
    const size_t size = 16u << 20;
    auto* p = static_cast<char*>(mmap(nullptr, size, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    for (size_t i = 0; i < size; i += 4096) p[i] = 1;
    munmap(p, size);
  }
}

int main() {
  touch_pages();
  SPIN_FOR_MS(100);
  std::printf("touched\n");
  return 0;
}
