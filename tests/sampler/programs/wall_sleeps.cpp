// Each call that sleeps and that SA_RESTART does not restart, asked for 100 ms, in a
// function of its own: under `sample-run --clock wall` none may return early
// (sampler/runtime/sleep_interpose.cpp), and each function's wall time must be there. Then
// a signal of the program's own must still interrupt poll() and end sigsuspend() as it
// does unprofiled, and its handler must read the mask it would read unprofiled. Prints one
// line per call; the same lines with and without a profiler.
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace {

constexpr long kSleepMs = 100;

double now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

template <typename Call>
void timed(const char* name, Call call) {
  const double start = now_ms();
  errno = 0;
  const long rc = call();
  const int error = errno;
  const double took = now_ms() - start;
  std::printf("%s: rc %ld, %s, %s\n", name, rc, error == EINTR ? "EINTR" : "no EINTR",
              took >= 0.95 * kSleepMs ? "slept in full" : "woke early");
}

}  // namespace

extern "C" {
__attribute__((noinline)) void in_nanosleep() {
  timed("nanosleep", [] {
    timespec t{0, kSleepMs * 1000000};
    return static_cast<long>(nanosleep(&t, nullptr));
  });
}
__attribute__((noinline)) void in_clock_nanosleep() {
  timed("clock_nanosleep", [] {
    timespec t{0, kSleepMs * 1000000};
    return static_cast<long>(clock_nanosleep(CLOCK_MONOTONIC, 0, &t, nullptr));
  });
}
__attribute__((noinline)) void in_usleep() {
  timed("usleep", [] { return static_cast<long>(usleep(kSleepMs * 1000)); });
}
__attribute__((noinline)) void in_select() {
  timed("select", [] {
    timeval t{0, kSleepMs * 1000};
    return static_cast<long>(select(0, nullptr, nullptr, nullptr, &t));
  });
}
__attribute__((noinline)) void in_pselect() {
  timed("pselect", [] {
    timespec t{0, kSleepMs * 1000000};
    sigset_t none;
    sigemptyset(&none);
    return static_cast<long>(pselect(0, nullptr, nullptr, nullptr, &t, &none));
  });
}
__attribute__((noinline)) void in_poll() {
  timed("poll", [] { return static_cast<long>(poll(nullptr, 0, kSleepMs)); });
}
__attribute__((noinline)) void in_ppoll() {
  timed("ppoll", [] {
    timespec t{0, kSleepMs * 1000000};
    sigset_t none;
    sigemptyset(&none);
    return static_cast<long>(ppoll(nullptr, 0, &t, &none));
  });
}
__attribute__((noinline)) void in_epoll_wait() {
  const int ep = epoll_create1(0);
  timed("epoll_wait", [ep] {
    epoll_event e{};
    return static_cast<long>(epoll_wait(ep, &e, 1, kSleepMs));
  });
  close(ep);
}
}

namespace {

sigset_t g_handler_mask;  // what the SIGUSR1 handler read of its thread's mask

void on_usr1(int) { pthread_sigmask(SIG_BLOCK, nullptr, &g_handler_mask); }

// Whether the handler saw `during` (the mask while the call waited) with SIGUSR1 added, as
// the kernel gives a handler: the profiler's holding of its own signal must not show.
bool handler_saw(sigset_t during) {
  sigaddset(&during, SIGUSR1);
  for (int sig = 1; sig <= SIGRTMAX; ++sig) {
    if (sigismember(&during, sig) != sigismember(&g_handler_mask, sig)) return false;
  }
  return true;
}

// Sends SIGUSR1 to `target` after 50 ms.
void* send_usr1_later(void* target) {
  timespec t{0, 50L * 1000000};
  nanosleep(&t, nullptr);
  pthread_kill(*static_cast<pthread_t*>(target), SIGUSR1);
  return nullptr;
}

template <typename Call>
void interrupted_by_the_program(const char* name, const sigset_t& mask_during, Call call) {
  pthread_t self = pthread_self(), sender;
  pthread_create(&sender, nullptr, send_usr1_later, &self);
  const double start = now_ms();
  errno = 0;
  const long rc = call();
  const int error = errno;
  const double took = now_ms() - start;
  pthread_join(sender, nullptr);
  std::printf("%s with SIGUSR1 at 50 ms: rc %ld, %s, %s, %s\n", name, rc,
              error == EINTR ? "EINTR" : "no EINTR",
              took >= 40 && took < 1000 ? "woke at the program's signal" : "woke at another time",
              handler_saw(mask_during) ? "the handler saw the mask it would"
                                       : "the handler saw another mask");
}

}  // namespace

int main() {
  in_nanosleep();
  in_clock_nanosleep();
  in_usleep();
  in_select();
  in_pselect();
  in_poll();
  in_ppoll();
  in_epoll_wait();

  struct sigaction sa {};
  sa.sa_handler = on_usr1;  // no SA_RESTART: the program wants its calls interrupted
  sigaction(SIGUSR1, &sa, nullptr);
  sigset_t thread_mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &thread_mask);
  interrupted_by_the_program("poll", thread_mask,
                             [] { return static_cast<long>(poll(nullptr, 0, 2000)); });
  sigset_t usr1_unblocked;
  sigemptyset(&usr1_unblocked);
  interrupted_by_the_program("sigsuspend", usr1_unblocked,
                             [&] { return static_cast<long>(sigsuspend(&usr1_unblocked)); });
  std::fflush(stdout);
  return 0;
}
