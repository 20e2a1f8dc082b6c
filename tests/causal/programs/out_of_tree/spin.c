/* An out-of-tree build's program: compiled from a build folder as `cc -g ../src/spin.c`,
 * so its DWARF names the file relative to the compilation directory (tests/causal,
 * CausalRun.OutOfTreeBuildIsItsOwnCode). */
#include <stdio.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(unsigned long n) {
  for (unsigned long i = 0; i < n; ++i) sink += i * i; /* OOT_HOT_LINE */
}

int main(void) {
  for (int r = 0; r < 60; ++r) work(2000000);
  printf("%lu\n", sink);
  return 0;
}
