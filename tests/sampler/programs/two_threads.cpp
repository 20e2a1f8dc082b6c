// Two threads with disjoint work: alpha_work only on the first, beta_work only on the
// second; the main thread spins in main_work. Per-thread attribution must keep them apart.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>

#include "spin.h"

extern "C" {
__attribute__((noinline)) void alpha_work() { SPIN_FOR_MS(300); }
__attribute__((noinline)) void beta_work() { SPIN_FOR_MS(300); }
__attribute__((noinline)) void main_work() { SPIN_FOR_MS(150); }
}

static void* alpha(void*) {
  std::printf("alpha tid %ld\n", static_cast<long>(syscall(SYS_gettid)));
  alpha_work();
  return nullptr;
}
static void* beta(void*) {
  std::printf("beta tid %ld\n", static_cast<long>(syscall(SYS_gettid)));
  beta_work();
  return nullptr;
}

int main() {
  pthread_t a;
  pthread_t b;
  pthread_create(&a, nullptr, alpha, nullptr);
  pthread_create(&b, nullptr, beta, nullptr);
  main_work();
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  std::printf("done\n");
  return 0;
}
