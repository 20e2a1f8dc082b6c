// One thread takes and releases one mutex N times, a little work inside, with a progress
// point every 1000 rounds: the pattern of a program that locks in most of its calls though
// no other thread ever holds the lock (SQLite in its default thread-safe mode). For
// bench/causal/lock_cost.sh, which times what causal-run adds per uncontended lock.
//   uncontended_locks N
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "causal/progress.h"

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  uint64_t x = 1;
  for (uint64_t i = 0; i < n; ++i) {
    pthread_mutex_lock(&m);
    x = x * 6364136223846793005ULL + i;  // LOCKED_WORK
    pthread_mutex_unlock(&m);
    if (i % 1000 == 999) CAUSAL_PROGRESS;
  }
  std::printf("%llu\n", static_cast<unsigned long long>(x & 0xff));
  return 0;
}
