#include <cstdio>

#include "spin.h"

extern "C" __attribute__((noinline)) void target_work() { SPIN_FOR_MS(200); }

int main() {
  target_work();
  std::printf("target done\n");
  return 7;
}
