// Maps its own text a second time and runs a function there, as V8 does with node's
// embedded builtins: the samples in the copy must be named (remapped_code.h), not
// "[unknown]".
//   remapped_text [MILLISECONDS]
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "movable_leaf.h"

int main(int argc, char** argv) {
  const long ms = argc > 1 ? std::atol(argv[1]) : 400;
  const auto fn = reinterpret_cast<uintptr_t>(&movable_spin);
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return 2;
  char line[4096];
  uintptr_t start = 0, end = 0;
  unsigned long long offset = 0;
  char path[4096] = {};
  bool found = false;
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    char perms[8] = {};
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %*s %*s %4095s", &start, &end, perms,
                    &offset, path) == 5 &&
        fn >= start && fn < end) {
      found = true;
      break;
    }
  }
  std::fclose(maps);
  if (!found) return 3;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 4;
  void* copy = mmap(nullptr, end - start, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
                    static_cast<off_t>(offset));
  close(fd);
  if (copy == MAP_FAILED) return 5;
  auto* in_copy = reinterpret_cast<uint64_t (*)(uint64_t)>(
      reinterpret_cast<uintptr_t>(copy) + (fn - start));
  uint64_t sum = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) sum += in_copy(200000);
  std::printf("%" PRIu64 "\n", sum & 0xff);
  return 0;
}
