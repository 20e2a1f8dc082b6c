// A thread that sleeps in poll(-1) until the process exits, as an event loop's idle thread
// does in epoll_wait. Under `sample-run --clock wall` the call holds the sampling signal
// and its sample would come only as it returned: the exit path must write it instead.
#include <poll.h>
#include <pthread.h>
#include <time.h>

#include <cstdio>

// Not a tail call: its frame must be on the stack under poll.
extern "C" __attribute__((noinline)) void wait_forever_in_poll() {
  if (poll(nullptr, 0, -1) < 0) std::perror("poll");
}

static void* idle_loop(void*) {
  wait_forever_in_poll();
  return nullptr;
}

int main() {
  pthread_t t;
  pthread_create(&t, nullptr, idle_loop, nullptr);
  timespec wait{0, 400'000'000};
  nanosleep(&wait, nullptr);
  std::printf("exiting with the idle thread asleep\n");
  return 0;
}
