// Compresses the same text with zlib at level 9 for about a second: most of its time is
// in libz's internal functions (deflate_slow, longest_match), which Debian's stripped
// libz.so has no names for. Deterministic input; the output is only checked for size.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void) {
  enum { kSize = 1 << 20 };
  static unsigned char text[kSize];
  static unsigned char packed[kSize + kSize / 100 + 64];
  unsigned state = 12345;
  for (size_t i = 0; i < kSize; ++i) {  // words from a small alphabet: long matches to find
    state = state * 1103515245u + 12345u;
    text[i] = (unsigned char)("abcdefgh ij\n"[(state >> 16) % 12]);
  }
  const double end = now() + 1.0;
  int rounds = 0;
  uLongf size = 0;
  while (rounds < 200 && now() < end) {
    size = sizeof packed;
    if (compress2(packed, &size, text, kSize, 9) != Z_OK) return 1;
    ++rounds;
  }
  printf("%d rounds, %lu bytes\n", rounds, (unsigned long)size);
  return 0;
}
