// Programs that profiling must not harm (tests/sampler/host_harm_e2e_test.cpp):
//   rt-handlers   a handler on every real-time signal; sends itself 3 of SIGRTMAX-2 and
//                 prints how often each handler ran ("SIGRTMAX-2 ran N")
//   alarm-jump    SIGALRM every millisecond, its handler leaves by siglongjmp; spins
//                 400 ms of CPU in spin_through_alarms
//   small-writer  prints one line and spins 600 ms of CPU (run under a small RLIMIT_FSIZE)
//   open-files    opens /dev/null until it cannot and prints "opened N"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "spin.h"

namespace {

std::atomic<int> g_ran[_NSIG];

void count(int sig) { g_ran[sig].fetch_add(1); }

int rt_handlers() {
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) {
    struct sigaction sa {};
    sa.sa_handler = count;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, nullptr) != 0) return 2;
  }
  SPIN_FOR_MS(300);
  for (int i = 0; i < 3; ++i) raise(SIGRTMAX - 2);
  SPIN_FOR_MS(100);
  // sigaction reports the program's own handler back.
  struct sigaction now {};
  sigaction(SIGRTMAX - 2, nullptr, &now);
  std::printf("SIGRTMAX-2 ran %d, handler %s\n", g_ran[SIGRTMAX - 2].load(),
              now.sa_handler == count ? "kept" : "lost");
  int others = 0;
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) {
    if (sig != SIGRTMAX - 2) others += g_ran[sig].load();
  }
  std::printf("other real-time handlers ran %d\n", others);
  return 0;
}

sigjmp_buf g_jump;
std::atomic<int> g_jumps{0};

void on_alarm(int) {
  g_jumps.fetch_add(1);
  siglongjmp(g_jump, 1);
}

__attribute__((noinline)) void spin_through_alarms() {
  const uint64_t end = thread_cpu_ns() + 400 * 1000000ull;
  // The jump target first, then the timer: no alarm can come before there is one.
  if (sigsetjmp(g_jump, 1) == 0) {
    itimerval every_ms{{0, 1000}, {0, 1000}};
    setitimer(ITIMER_REAL, &every_ms, nullptr);
  }
  volatile uint64_t x = 0;
  while (thread_cpu_ns() < end) {
    for (int i = 0; i < 1000; ++i) x = x + i;
  }
  itimerval off{};
  setitimer(ITIMER_REAL, &off, nullptr);
}

int alarm_jump() {
  struct sigaction sa {};
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, nullptr);
  spin_through_alarms();
  std::printf("jumped %d times\n", g_jumps.load());
  return 0;
}

int small_writer() {
  std::printf("a line of output\n");
  std::fflush(stdout);
  SPIN_FOR_MS(600);
  std::printf("done\n");
  return 0;
}

int open_files() {
  int n = 0;
  while (open("/dev/null", O_RDONLY) >= 0) ++n;
  std::printf("opened %d\n", n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "rt-handlers") == 0) return rt_handlers();
  if (std::strcmp(mode, "alarm-jump") == 0) return alarm_jump();
  if (std::strcmp(mode, "small-writer") == 0) return small_writer();
  if (std::strcmp(mode, "open-files") == 0) return open_files();
  std::fprintf(stderr, "usage: host_harm rt-handlers|alarm-jump|small-writer|open-files\n");
  return 2;
}
