// Spins at the bottom of a recursion N frames deep (default 1500): every sample's stack is
// as deep as --depth allows.
//   deep_stack [N]
#include <cstdio>
#include <cstdlib>

#include "spin.h"

extern "C" __attribute__((noinline)) void deep_bottom_work() { SPIN_FOR_MS(400); }

__attribute__((noinline)) int descend(int n) {
  if (n == 0) {
    deep_bottom_work();
    return 0;
  }
  const int r = descend(n - 1) + 1;
  asm volatile("" : : "r"(r) : "memory");  // not a tail call: every level keeps its frame
  return r;
}

int main(int argc, char** argv) {
  const int depth = argc > 1 ? std::atoi(argv[1]) : 1500;
  std::printf("%d\n", descend(depth));
  return 0;
}
