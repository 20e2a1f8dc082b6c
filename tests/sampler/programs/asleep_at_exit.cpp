// A thread that sleeps in poll(-1) until the process exits, as an event loop's idle thread
// does in epoll_wait. Under `sample-run --clock wall` the call holds the sampling signal
// and its sample would come only as it returned: the exit path must write it instead.
//
//   asleep_at_exit           the idle thread sleeps 400 ms until the exit
//   asleep_at_exit longjmp   no idle thread; main leaves a 10 s nanosleep after 50 ms by
//                            siglongjmp from its SIGALRM handler, then spins 300 ms: the
//                            left call is no sleep at exit
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include <cstdio>
#include <cstring>

#include "spin.h"

// Not a tail call: its frame must be on the stack under poll.
extern "C" __attribute__((noinline)) void wait_forever_in_poll() {
  if (poll(nullptr, 0, -1) < 0) std::perror("poll");
}

static void* idle_loop(void*) {
  wait_forever_in_poll();
  return nullptr;
}

static sigjmp_buf g_jump;

static void on_alarm(int) { siglongjmp(g_jump, 1); }

extern "C" __attribute__((noinline)) void left_by_longjmp() {
  struct sigaction sa {};
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, nullptr);
  if (sigsetjmp(g_jump, 1) == 0) {
    itimerval once{};
    once.it_value.tv_usec = 50'000;
    setitimer(ITIMER_REAL, &once, nullptr);
    timespec ten_seconds{10, 0};
    nanosleep(&ten_seconds, nullptr);
    std::printf("nanosleep returned\n");
  }
}

extern "C" __attribute__((noinline)) void spin_after_the_jump() { SPIN_FOR_MS(300); }

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "longjmp") == 0) {
    left_by_longjmp();
    spin_after_the_jump();
    std::printf("left nanosleep by longjmp\n");
    return 0;
  }
  pthread_t t;
  pthread_create(&t, nullptr, idle_loop, nullptr);
  timespec wait{0, 400'000'000};
  nanosleep(&wait, nullptr);
  std::printf("exiting with the idle thread asleep\n");
  return 0;
}
