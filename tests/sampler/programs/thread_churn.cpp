// Thousands of short-lived threads, a few at a time, each with a little work.
#include <pthread.h>

#include <cstdio>
#include <cstdlib>

#include "spin.h"

extern "C" __attribute__((noinline)) void churn_work() { SPIN_FOR_MS(1); }

static void* body(void*) {
  churn_work();
  return nullptr;
}

int main(int argc, char** argv) {
  const int total = argc > 1 ? std::atoi(argv[1]) : 3000;
  constexpr int kBatch = 8;
  for (int done = 0; done < total; done += kBatch) {
    pthread_t t[kBatch];
    for (auto& th : t) pthread_create(&th, nullptr, body, nullptr);
    for (auto& th : t) pthread_join(th, nullptr);
  }
  std::printf("%d threads\n", total);
  return 0;
}
