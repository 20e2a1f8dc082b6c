// Runs code from anonymous executable memory, as a JIT compiler's output runs, and names
// it in /tmp/perf-PID.map as node --perf-basic-prof does: the samples there must be named
// "jit_spin" in the report (the sampler keeps the map with the results), not "[unknown]".
// The map is left in /tmp, as runtimes leave it; the test removes it.
//   jit_code [MILLISECONDS]
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "movable_leaf.h"

int main(int argc, char** argv) {
  const long ms = argc > 1 ? std::atol(argv[1]) : 400;
  constexpr size_t kCode = 256;  // more than the leaf's bytes
  void* code = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 2;
  std::memcpy(code, reinterpret_cast<const void*>(&movable_spin), kCode);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0) return 3;
  char path[64];
  std::snprintf(path, sizeof path, "/tmp/perf-%d.map", static_cast<int>(getpid()));
  FILE* map = std::fopen(path, "w");
  if (map == nullptr) return 4;
  std::fprintf(map, "%" PRIxPTR " %zx jit_spin\n", reinterpret_cast<uintptr_t>(code), kCode);
  std::fclose(map);
  auto* jitted = reinterpret_cast<uint64_t (*)(uint64_t)>(code);
  uint64_t sum = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) sum += jitted(200000);
  std::printf("%" PRIu64 "\n", sum & 0xff);
  return 0;
}
