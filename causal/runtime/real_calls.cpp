#include "causal/runtime/real_calls.h"

#include <sys/prctl.h>

#include <cerrno>

#include "common/monotonic.h"
#include "sampler/runtime/real.h"

namespace cprof::causal {
namespace {

uint64_t real_sleep_for(uint64_t ns, void* /*context*/) {
  if (ns == 0) return 0;
  const int saved_errno = errno;
  const uint64_t start = monotonic_ns();
  timespec req{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  timespec rem{};
  // The kernel lets a sleep run over by the thread's timer slack (50 us by default), a
  // fifth of a typical delay; the oversleep is paid by every other thread too. Sleep with
  // the least slack, then give the program's own back.
  const int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  if (slack > 1) prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
  // A signal (the sampler's own) interrupts the sleep: sleep the rest.
  while (real::nanosleep()(&req, &rem) != 0 && errno == EINTR) req = rem;
  if (slack > 1) prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack), 0, 0, 0);
  errno = saved_errno;
  return monotonic_ns() - start;
}

}  // namespace

Sleeper real_sleeper() { return Sleeper{real_sleep_for, nullptr}; }

int join_thread(pthread_t thread, void** result) { return real::pthread_join()(thread, result); }

long real_syscall6(long number, long a0, long a1, long a2, long a3, long a4, long a5) {
  return real::syscall()(number, a0, a1, a2, a3, a4, a5);
}

int real_sigaction_call(int sig, const struct sigaction* action, struct sigaction* old) {
  return real::sigaction()(sig, action, old);
}

}  // namespace cprof::causal
