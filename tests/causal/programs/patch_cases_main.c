// Calls each case of patch_cases.S N times (argv[1], default 100000) and prints the sums
// of what they returned, the same with or without counters patched into them.
#include <stdio.h>
#include <stdlib.h>

long case_rip_load(long);
int case_short(int);
long case_call(long);
int case_flags(int);
long case_red_zone(long);
int case_branch(int);
int case_refused(void);

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 100000;
  long sums[7] = {0};
  for (long i = 0; i < n; ++i) {
    sums[0] += case_rip_load(i);  // WORK_LINE
    sums[1] += case_short((int)(i % 100));
    sums[2] += case_call(i);
    sums[3] += case_flags((int)(i % 10));
    sums[4] += case_red_zone(i);
    sums[5] += case_branch((int)(i % 8));
    sums[6] += case_refused();
  }
  printf("%ld %ld %ld %ld %ld %ld %ld\n", sums[0], sums[1], sums[2], sums[3], sums[4], sums[5],
         sums[6]);
  return 0;
}
