// The blocking calls the causal runtime interposes (docs/causal.md "Delays", "Blocking
// that bypasses pthread"). Each applies the rules of causal/delays.h and forwards to the
// next definition (RTLD_NEXT) with the same arguments, result and errno:
//   about to wake another thread  (unlock, signal, post, futex wake): pay what it owes
//   about to block                (lock, wait, join, futex wait):    remember the global count
//   woken by another thread       (the call returned a wake):        credited
//   woke by itself                (timeout, sleep, I/O):              pays
// Threads the runtime does not know (its own, or before it started) pass straight through.

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>

#include "causal/runtime/calling_thread.h"
#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/futex_rules.h"
#include "causal/runtime/real_calls.h"
#include "common/monotonic.h"
#include "sampler/runtime/interpose.h"

namespace cprof::causal {
namespace {

template <typename Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

// Every real function, resolved once (resolve_real_calls) or on first use. No function
// static: its initialization guard may wait on a futex through syscall(), which is
// interposed here too.
#define CPROF_REAL(name) \
  decltype(&::name) g_real_##name = nullptr; \
  decltype(&::name) real_##name() { \
    auto fn = __atomic_load_n(&g_real_##name, __ATOMIC_RELAXED); \
    if (fn == nullptr) { \
      fn = next<decltype(&::name)>(#name); \
      __atomic_store_n(&g_real_##name, fn, __ATOMIC_RELAXED); \
    } \
    return fn; \
  }
CPROF_REAL(pthread_mutex_lock)
CPROF_REAL(pthread_mutex_trylock)
CPROF_REAL(pthread_mutex_timedlock)
CPROF_REAL(pthread_mutex_unlock)
CPROF_REAL(pthread_cond_wait)
CPROF_REAL(pthread_cond_timedwait)
CPROF_REAL(pthread_cond_clockwait)
CPROF_REAL(pthread_cond_signal)
CPROF_REAL(pthread_cond_broadcast)
CPROF_REAL(pthread_join)
CPROF_REAL(pthread_timedjoin_np)
CPROF_REAL(pthread_barrier_wait)
CPROF_REAL(pthread_rwlock_rdlock)
CPROF_REAL(pthread_rwlock_wrlock)
CPROF_REAL(pthread_rwlock_timedrdlock)
CPROF_REAL(pthread_rwlock_timedwrlock)
CPROF_REAL(pthread_rwlock_unlock)
CPROF_REAL(pthread_spin_lock)
CPROF_REAL(pthread_spin_unlock)
CPROF_REAL(pthread_kill)
CPROF_REAL(sem_wait)
CPROF_REAL(sem_timedwait)
CPROF_REAL(sem_clockwait)
CPROF_REAL(sem_post)
CPROF_REAL(sigwait)
CPROF_REAL(sigwaitinfo)
CPROF_REAL(sigtimedwait)
CPROF_REAL(nanosleep)
CPROF_REAL(clock_nanosleep)
CPROF_REAL(usleep)
CPROF_REAL(sleep)
CPROF_REAL(read)
CPROF_REAL(poll)
CPROF_REAL(ppoll)
CPROF_REAL(select)
CPROF_REAL(pselect)
CPROF_REAL(epoll_wait)
CPROF_REAL(epoll_pwait)
CPROF_REAL(syscall)
#undef CPROF_REAL

// A blocking call's bookkeeping: construct before blocking, then say how it ended.
class Block {
 public:
  Block() {
    if (s_) global_ = s_.rt->delays().before_block(s_.t->delay);
  }
  void woken_by_other() {
    s_.apply([this](DelayAccounting& d, ThreadDelay& t) { d.after_woken_by_other(t, global_); });
  }
  void self_wake() {
    s_.apply([](DelayAccounting& d, ThreadDelay& t) { d.after_self_wake(t); });
  }
  // pthread-style result: 0 woken, ETIMEDOUT (or another error) by itself.
  int pthread_result(int rc) {
    if (rc == 0) {
      woken_by_other();
    } else {
      self_wake();
    }
    return rc;
  }

 private:
  CallingThread s_;
  uint64_t global_ = 0;
};

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
  while (real_nanosleep()(&req, &rem) != 0 && errno == EINTR) req = rem;
  if (slack > 1) prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack), 0, 0, 0);
  errno = saved_errno;
  return monotonic_ns() - start;
}

}  // namespace

void resolve_real_calls() {
  real_pthread_mutex_lock(); real_pthread_mutex_trylock(); real_pthread_mutex_timedlock();
  real_pthread_mutex_unlock(); real_pthread_cond_wait(); real_pthread_cond_timedwait();
  real_pthread_cond_clockwait(); real_pthread_cond_signal(); real_pthread_cond_broadcast();
  real_pthread_join(); real_pthread_timedjoin_np(); real_pthread_barrier_wait();
  real_pthread_rwlock_rdlock(); real_pthread_rwlock_wrlock(); real_pthread_rwlock_timedrdlock();
  real_pthread_rwlock_timedwrlock(); real_pthread_rwlock_unlock(); real_pthread_spin_lock();
  real_pthread_spin_unlock(); real_pthread_kill(); real_sem_wait(); real_sem_timedwait();
  real_sem_clockwait(); real_sem_post(); real_sigwait(); real_sigwaitinfo(); real_sigtimedwait();
  real_nanosleep(); real_clock_nanosleep(); real_usleep(); real_sleep(); real_read(); real_poll();
  real_ppoll(); real_select(); real_pselect(); real_epoll_wait(); real_epoll_pwait();
  real_syscall();
}

Sleeper real_sleeper() { return Sleeper{real_sleep_for, nullptr}; }

int join_thread(pthread_t thread, void** result) { return real_pthread_join()(thread, result); }

long real_syscall6(long number, long a0, long a1, long a2, long a3, long a4, long a5) {
  return real_syscall()(number, a0, a1, a2, a3, a4, a5);
}

FutexCounts& futex_counts() {
  static FutexCounts counts;  // constant-initialized: no guard
  return counts;
}

long syscall_with_futex_rules(long number, const long a[6], FutexPath path) {
  const auto real_fn = real_syscall();
  const FutexCall call = classify_futex(number, a[1]);
  futex_counts().count(path, call);
  if (call == FutexCall::wake) wake_other();
  if (call != FutexCall::wait) return real_fn(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  Block b;
  const long rc = real_fn(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  switch (classify_wait_end(rc, errno)) {
    case WaitEnd::woken_by_other: b.woken_by_other(); break;
    case WaitEnd::self_wake: b.self_wake(); break;
    case WaitEnd::did_not_sleep: break;  // EAGAIN: the value had changed, it never slept
  }
  return rc;
}

}  // namespace cprof::causal

using cprof::causal::Block;
using cprof::causal::wake_other;
namespace real = cprof::causal;

#define CPROF_EXPORT extern "C" __attribute__((visibility("default")))

// ---- mutexes ----
CPROF_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  Block b;
  return b.pthread_result(real::real_pthread_mutex_lock()(m));
}
CPROF_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  return real::real_pthread_mutex_trylock()(m);  // never blocks
}
CPROF_EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m, const timespec* t) {
  Block b;
  return b.pthread_result(real::real_pthread_mutex_timedlock()(m, t));
}
CPROF_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  wake_other();
  return real::real_pthread_mutex_unlock()(m);
}

// ---- condition variables: waiting releases the mutex (may wake a waiter) ----
CPROF_EXPORT int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  wake_other();
  Block b;
  return b.pthread_result(real::real_pthread_cond_wait()(c, m));
}
CPROF_EXPORT int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const timespec* t) {
  wake_other();
  Block b;
  return b.pthread_result(real::real_pthread_cond_timedwait()(c, m, t));
}
CPROF_EXPORT int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock,
                                        const timespec* t) {
  wake_other();
  Block b;
  return b.pthread_result(real::real_pthread_cond_clockwait()(c, m, clock, t));
}
CPROF_EXPORT int pthread_cond_signal(pthread_cond_t* c) {
  wake_other();
  return real::real_pthread_cond_signal()(c);
}
CPROF_EXPORT int pthread_cond_broadcast(pthread_cond_t* c) {
  wake_other();
  return real::real_pthread_cond_broadcast()(c);
}

// ---- join, barrier ----
CPROF_EXPORT int pthread_join(pthread_t t, void** result) {
  Block b;
  return b.pthread_result(real::real_pthread_join()(t, result));
}
CPROF_EXPORT int pthread_timedjoin_np(pthread_t t, void** result, const timespec* abstime) {
  Block b;
  return b.pthread_result(real::real_pthread_timedjoin_np()(t, result, abstime));
}
CPROF_EXPORT int pthread_barrier_wait(pthread_barrier_t* barrier) {
  wake_other();  // the last to arrive wakes the others
  Block b;
  const int rc = real::real_pthread_barrier_wait()(barrier);
  b.woken_by_other();
  return rc;
}

// ---- rwlocks, spinlocks ----
CPROF_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  Block b;
  return b.pthread_result(real::real_pthread_rwlock_rdlock()(l));
}
CPROF_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  Block b;
  return b.pthread_result(real::real_pthread_rwlock_wrlock()(l));
}
CPROF_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const timespec* t) {
  Block b;
  return b.pthread_result(real::real_pthread_rwlock_timedrdlock()(l, t));
}
CPROF_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const timespec* t) {
  Block b;
  return b.pthread_result(real::real_pthread_rwlock_timedwrlock()(l, t));
}
CPROF_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  wake_other();
  return real::real_pthread_rwlock_unlock()(l);
}
CPROF_EXPORT int pthread_spin_lock(pthread_spinlock_t* l) {
  Block b;
  return b.pthread_result(real::real_pthread_spin_lock()(l));
}
CPROF_EXPORT int pthread_spin_unlock(pthread_spinlock_t* l) {
  wake_other();
  return real::real_pthread_spin_unlock()(l);
}

// ---- semaphores ----
CPROF_EXPORT int sem_wait(sem_t* s) {
  Block b;
  const int rc = real::real_sem_wait()(s);
  if (rc == 0) b.woken_by_other(); else b.self_wake();
  return rc;
}
CPROF_EXPORT int sem_timedwait(sem_t* s, const timespec* t) {
  Block b;
  const int rc = real::real_sem_timedwait()(s, t);
  if (rc == 0) b.woken_by_other(); else b.self_wake();
  return rc;
}
CPROF_EXPORT int sem_clockwait(sem_t* s, clockid_t clock, const timespec* t) {
  Block b;
  const int rc = real::real_sem_clockwait()(s, clock, t);
  if (rc == 0) b.woken_by_other(); else b.self_wake();
  return rc;
}
CPROF_EXPORT int sem_post(sem_t* s) {
  wake_other();
  return real::real_sem_post()(s);
}

// ---- signals: a signal sent by another thread wakes the waiter ----
CPROF_EXPORT int pthread_kill(pthread_t t, int sig) {
  wake_other();
  return real::real_pthread_kill()(t, sig);
}
CPROF_EXPORT int sigwait(const sigset_t* set, int* sig) {
  Block b;
  return b.pthread_result(real::real_sigwait()(set, sig));
}
CPROF_EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  Block b;
  const int rc = real::real_sigwaitinfo()(set, info);
  if (rc > 0) b.woken_by_other(); else b.self_wake();
  return rc;
}
CPROF_EXPORT int sigtimedwait(const sigset_t* set, siginfo_t* info, const timespec* t) {
  Block b;
  const int rc = real::real_sigtimedwait()(set, info, t);
  if (rc > 0) b.woken_by_other(); else b.self_wake();
  return rc;
}

// ---- sleeps and I/O waits: nobody in the program wakes them; they pay on return ----
CPROF_EXPORT int nanosleep(const timespec* req, timespec* rem) {
  Block b;
  const int rc = real::real_nanosleep()(req, rem);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int clock_nanosleep(clockid_t clock, int flags, const timespec* req, timespec* rem) {
  Block b;
  const int rc = real::real_clock_nanosleep()(clock, flags, req, rem);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int usleep(useconds_t us) {
  Block b;
  const int rc = real::real_usleep()(us);
  b.self_wake();
  return rc;
}
CPROF_EXPORT unsigned sleep(unsigned seconds) {
  Block b;
  const unsigned rc = real::real_sleep()(seconds);
  b.self_wake();
  return rc;
}
CPROF_EXPORT ssize_t read(int fd, void* buf, size_t count) {
  Block b;
  const ssize_t rc = real::real_read()(fd, buf, count);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int poll(pollfd* fds, nfds_t n, int timeout) {
  Block b;
  const int rc = real::real_poll()(fds, n, timeout);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int ppoll(pollfd* fds, nfds_t n, const timespec* t, const sigset_t* mask) {
  Block b;
  const int rc = real::real_ppoll()(fds, n, t, mask);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int select(int n, fd_set* r, fd_set* w, fd_set* e, timeval* t) {
  Block b;
  const int rc = real::real_select()(n, r, w, e, t);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const timespec* t,
                         const sigset_t* mask) {
  Block b;
  const int rc = real::real_pselect()(n, r, w, e, t, mask);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int epoll_wait(int epfd, epoll_event* events, int max, int timeout) {
  Block b;
  const int rc = real::real_epoll_wait()(epfd, events, max, timeout);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int epoll_pwait(int epfd, epoll_event* events, int max, int timeout,
                             const sigset_t* mask) {
  Block b;
  const int rc = real::real_epoll_pwait()(epfd, events, max, timeout, mask);
  b.self_wake();
  return rc;
}

// ---- futexes called through libc's syscall(): C++20 atomic wait/barrier/latch/semaphore
// (header code compiled into the program) and TBB (docs/causal.md) ----
CPROF_EXPORT long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& x : a) x = va_arg(ap, long);
  va_end(ap);
  if (long result = 0; cprof::sampler::exec_system_call(number, a, result)) return result;
  return cprof::causal::syscall_with_futex_rules(number, a, cprof::causal::FutexPath::syscall_function);
}
