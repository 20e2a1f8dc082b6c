// Threads that rename themselves after they start, as a JVM names its threads once they
// run: the report must show the names they ended with, not the ones they began with.
//   "late-name"      renames itself after 300 ms of CPU time, spins on, and ends
//   "still-running"  renames itself after 300 ms and is still blocked when the process exits
//   (plain)          never renames itself: keeps the program's name
//   main             renames itself "main-renamed" just before it returns
// With "kill": after the renames main sleeps 300 ms and SIGKILLs the process, so no exit
// path runs: only what the writer wrote while it ran is left.
#include <pthread.h>
#include <unistd.h>

#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "spin.h"

static std::atomic<bool> lingerer_renamed{false};

static void* late(void*) {
  SPIN_FOR_MS(300);
  pthread_setname_np(pthread_self(), "late-name");
  SPIN_FOR_MS(50);
  return nullptr;
}

static void* lingerer(void*) {
  SPIN_FOR_MS(300);
  pthread_setname_np(pthread_self(), "still-running");
  lingerer_renamed.store(true);
  for (;;) pause();
}

static void* plain(void*) {
  SPIN_FOR_MS(100);
  return nullptr;
}

int main(int argc, char** argv) {
  pthread_t a;
  pthread_t b;
  pthread_t c;
  pthread_create(&a, nullptr, late, nullptr);
  pthread_create(&b, nullptr, lingerer, nullptr);
  pthread_create(&c, nullptr, plain, nullptr);
  pthread_join(a, nullptr);
  pthread_join(c, nullptr);
  while (!lingerer_renamed.load()) usleep(1000);
  pthread_setname_np(pthread_self(), "main-renamed");
  if (argc > 1 && std::strcmp(argv[1], "kill") == 0) {
    usleep(300'000);
    raise(SIGKILL);
  }
  std::printf("done\n");
  return 0;
}
