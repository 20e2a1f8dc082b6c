// The blocking calls the causal runtime interposes (docs/causal.md "Delays", "Blocking
// that bypasses pthread"). Each applies the rules of causal/delays.h and forwards to the
// next definition (RTLD_NEXT) with the same arguments, result and errno:
//   about to wake another thread  (unlock, signal, post, futex wake): pay what it owes
//   about to block                (lock, wait, join, futex wait):    remember the global count
//   woken by another thread       (the call returned a wake):        credited
//   woke by itself                (timeout, sleep, I/O):              pays
// Threads the runtime does not know (its own, or before it started) pass straight through.

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

#include "causal/runtime/blocking_calls.h"
#include "causal/runtime/calling_thread.h"
#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/futex_rules.h"
#include "causal/runtime/real_calls.h"
#include "common/monotonic.h"
#include "sampler/runtime/interpose.h"
#include "sampler/runtime/real.h"

namespace cprof::causal {
namespace {

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

// A lock that may be free is tried first. Taken at once, the thread never blocked and no
// other thread woke it: there is no block to account for. Before, every uncontended lock
// went through Block, which read the clock twice and left a wake to settle at the next
// payment: 7.6% of speedtest1's CPU time under causal-run, as SQLite takes a mutex in
// most of its calls. The thread still pays what it owes first, as before_block does, so
// a debt is not paid inside the critical section it enters.
template <typename TryLock, typename Lock>
int lock_trying_first(TryLock try_lock, Lock lock) {
  CallingThread().apply([](DelayAccounting& d, ThreadDelay& t) { d.before_lock_attempt(t); });
  if (const int rc = try_lock(); rc != EBUSY) return rc;
  Block b;
  return b.pthread_result(lock());
}

// sem_wait and its timed forms, tried first the same way (sem_trywait: a count above zero
// is taken at once). `wait()` is the real call. errno is the call's own: the try's EAGAIN
// is not the program's to see where the wait then succeeds.
template <typename Wait>
int sem_trying_first(sem_t* s, Wait wait) {
  const int saved = errno;
  const int tried = lock_trying_first(
      [s] { return real::sem_trywait()(s) == 0 ? 0 : (errno == EAGAIN ? EBUSY : -1); },
      [&wait] { return wait() == 0 ? 0 : -1; });
  if (tried == 0) errno = saved;
  return tried == 0 ? 0 : -1;
}

}  // namespace

FutexCounts& futex_counts() {
  static FutexCounts counts;  // constant-initialized: no guard
  return counts;
}

long syscall_with_futex_rules(long number, const long a[6], FutexPath path) {
  const auto real_fn = real::syscall();
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
using cprof::causal::lock_trying_first;
using cprof::causal::sem_trying_first;
using cprof::causal::wake_other;
namespace real = cprof::real;

// ---- mutexes ----
CPROF_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  return lock_trying_first([m] { return real::pthread_mutex_trylock()(m); },
                           [m] { return real::pthread_mutex_lock()(m); });
}
CPROF_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  return real::pthread_mutex_trylock()(m);  // never blocks
}
CPROF_EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m, const timespec* t) {
  return lock_trying_first([m] { return real::pthread_mutex_trylock()(m); },
                           [m, t] { return real::pthread_mutex_timedlock()(m, t); });
}
CPROF_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  wake_other();
  return real::pthread_mutex_unlock()(m);
}

// ---- condition variables: waiting releases the mutex (may wake a waiter) ----
CPROF_EXPORT int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  wake_other();
  Block b;
  return b.pthread_result(real::pthread_cond_wait()(c, m));
}
CPROF_EXPORT int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const timespec* t) {
  wake_other();
  Block b;
  return b.pthread_result(real::pthread_cond_timedwait()(c, m, t));
}
CPROF_EXPORT int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock,
                                        const timespec* t) {
  wake_other();
  Block b;
  return b.pthread_result(real::pthread_cond_clockwait()(c, m, clock, t));
}
CPROF_EXPORT int pthread_cond_signal(pthread_cond_t* c) {
  wake_other();
  return real::pthread_cond_signal()(c);
}
CPROF_EXPORT int pthread_cond_broadcast(pthread_cond_t* c) {
  wake_other();
  return real::pthread_cond_broadcast()(c);
}

// ---- join, barrier ----
CPROF_EXPORT int pthread_join(pthread_t t, void** result) {
  Block b;
  return b.pthread_result(real::pthread_join()(t, result));
}
CPROF_EXPORT int pthread_timedjoin_np(pthread_t t, void** result, const timespec* abstime) {
  Block b;
  return b.pthread_result(real::pthread_timedjoin_np()(t, result, abstime));
}
CPROF_EXPORT int pthread_barrier_wait(pthread_barrier_t* barrier) {
  wake_other();  // the last to arrive wakes the others
  Block b;
  const int rc = real::pthread_barrier_wait()(barrier);
  b.woken_by_other();
  return rc;
}

// ---- rwlocks, spinlocks ----
CPROF_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  return lock_trying_first([l] { return real::pthread_rwlock_tryrdlock()(l); },
                           [l] { return real::pthread_rwlock_rdlock()(l); });
}
CPROF_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  return lock_trying_first([l] { return real::pthread_rwlock_trywrlock()(l); },
                           [l] { return real::pthread_rwlock_wrlock()(l); });
}
CPROF_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const timespec* t) {
  return lock_trying_first([l] { return real::pthread_rwlock_tryrdlock()(l); },
                           [l, t] { return real::pthread_rwlock_timedrdlock()(l, t); });
}
CPROF_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const timespec* t) {
  return lock_trying_first([l] { return real::pthread_rwlock_trywrlock()(l); },
                           [l, t] { return real::pthread_rwlock_timedwrlock()(l, t); });
}
CPROF_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  wake_other();
  return real::pthread_rwlock_unlock()(l);
}
CPROF_EXPORT int pthread_spin_lock(pthread_spinlock_t* l) {
  return lock_trying_first([l] { return real::pthread_spin_trylock()(l); },
                           [l] { return real::pthread_spin_lock()(l); });
}
CPROF_EXPORT int pthread_spin_unlock(pthread_spinlock_t* l) {
  wake_other();
  return real::pthread_spin_unlock()(l);
}

// ---- semaphores ----
CPROF_EXPORT int sem_wait(sem_t* s) {
  return sem_trying_first(s, [s] { return real::sem_wait()(s); });
}
CPROF_EXPORT int sem_timedwait(sem_t* s, const timespec* t) {
  return sem_trying_first(s, [s, t] { return real::sem_timedwait()(s, t); });
}
CPROF_EXPORT int sem_clockwait(sem_t* s, clockid_t clock, const timespec* t) {
  return sem_trying_first(s, [s, clock, t] { return real::sem_clockwait()(s, clock, t); });
}
CPROF_EXPORT int sem_post(sem_t* s) {
  wake_other();
  return real::sem_post()(s);
}

// ---- signals: a signal sent by another thread wakes the waiter ----
CPROF_EXPORT int pthread_kill(pthread_t t, int sig) {
  wake_other();
  return real::pthread_kill()(t, sig);
}
CPROF_EXPORT int sigwait(const sigset_t* set, int* sig) {
  Block b;
  return b.pthread_result(real::sigwait()(set, sig));
}
CPROF_EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  Block b;
  const int rc = real::sigwaitinfo()(set, info);
  if (rc > 0) b.woken_by_other(); else b.self_wake();
  return rc;
}
CPROF_EXPORT int sigtimedwait(const sigset_t* set, siginfo_t* info, const timespec* t) {
  Block b;
  const int rc = real::sigtimedwait()(set, info, t);
  if (rc > 0) b.woken_by_other(); else b.self_wake();
  return rc;
}

// ---- sleeps and I/O waits: nobody in the program wakes them; they pay on return ----
CPROF_EXPORT int nanosleep(const timespec* req, timespec* rem) {
  Block b;
  const int rc = real::nanosleep()(req, rem);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int clock_nanosleep(clockid_t clock, int flags, const timespec* req, timespec* rem) {
  Block b;
  const int rc = real::clock_nanosleep()(clock, flags, req, rem);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int usleep(useconds_t us) {
  Block b;
  const int rc = real::usleep()(us);
  b.self_wake();
  return rc;
}
CPROF_EXPORT unsigned sleep(unsigned seconds) {
  Block b;
  const unsigned rc = real::sleep()(seconds);
  b.self_wake();
  return rc;
}
CPROF_EXPORT ssize_t read(int fd, void* buf, size_t count) {
  Block b;
  const ssize_t rc = real::read()(fd, buf, count);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int poll(pollfd* fds, nfds_t n, int timeout) {
  Block b;
  const int rc = real::poll()(fds, n, timeout);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int ppoll(pollfd* fds, nfds_t n, const timespec* t, const sigset_t* mask) {
  Block b;
  const int rc = real::ppoll()(fds, n, t, mask);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int select(int n, fd_set* r, fd_set* w, fd_set* e, timeval* t) {
  Block b;
  const int rc = real::select()(n, r, w, e, t);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const timespec* t,
                         const sigset_t* mask) {
  Block b;
  const int rc = real::pselect()(n, r, w, e, t, mask);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int epoll_wait(int epfd, epoll_event* events, int max, int timeout) {
  Block b;
  const int rc = real::epoll_wait()(epfd, events, max, timeout);
  b.self_wake();
  return rc;
}
CPROF_EXPORT int epoll_pwait(int epfd, epoll_event* events, int max, int timeout,
                             const sigset_t* mask) {
  Block b;
  const int rc = real::epoll_pwait()(epfd, events, max, timeout, mask);
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
