// The calls that sleep, interposed for `--clock wall`. The wall timer's signal reaches a
// thread while it sleeps, and these are the calls that SA_RESTART does not restart
// (signal(7)): at the first sample they return EINTR, or the time left, or 0 from
// sigsuspend/pause, so a program that does not loop on EINTR woke early. perl's
// `select(undef, undef, undef, 0.3)` returned after about 20 ms under
// `sample-run --clock wall`.
//
// For the call, the sampling signal is blocked in the calling thread, and added to any mask
// the call installs for its duration. The wall timer keeps one signal pending meanwhile and
// counts the other expirations as overruns. So when the call returns and the signal is
// unblocked, one sample stands for the whole sleep (period x (1 + overrun), engine.h), taken
// right here: on the interposer (named as the call it stands for) under the code that
// called it. A signal of the program's still interrupts the call as it does unprofiled.
// The CPU clock needs none of this (a sleeping thread uses no CPU time), so outside wall
// sampling, or in a thread that is not sampled, each interposer only forwards.

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "common/monotonic.h"
#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/thread_registry.h"

namespace {

namespace sampler = cprof::sampler;

// Unblocks `set` in the calling thread with the system call itself, written out in each
// interposer (a macro: an inlined function would name the sample's innermost frame), so that
// the signal left pending is delivered at an instruction of the interposer: the sample is
// then named after the call the program made, not after libc's pthread_sigmask.
#if defined(__x86_64__)
// rt_sigprocmask(how, set, old = null, size of the kernel's sigset = 8 bytes)
#define CPROF_UNBLOCK_INLINE(set)                                                          \
  do {                                                                                     \
    long cprof_rc_ = SYS_rt_sigprocmask;                                                   \
    register long cprof_size_ asm("r10") = 8;                                              \
    asm volatile("syscall"                                                                 \
                 : "+a"(cprof_rc_)                                                         \
                 : "D"(static_cast<long>(SIG_UNBLOCK)), "S"(set), "d"(0L), "r"(cprof_size_) \
                 : "rcx", "r11", "memory");                                                \
  } while (0)
#else
#define CPROF_UNBLOCK_INLINE(set) ::syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, (set), nullptr, 8)
#endif

// Saves the registers an unwinder starts from into `regs` (a HeldCallRegisters*), here in
// the interposer's own frame (a macro, like the unblock: a called function's frame would be
// gone by the time anyone unwinds from it). The PC is the next instruction's.
#if defined(__x86_64__)
#define CPROF_SAVE_REGISTERS(regs)                                           \
  asm volatile("leaq 0(%%rip), %%rax\n\t"                                   \
               "movq %%rax, 0(%0)\n\t"                                      \
               "movq %%rsp, 8(%0)\n\t"                                      \
               "movq %%rbp, 16(%0)\n\t"                                     \
               "movq %%rbx, 24(%0)\n\t"                                     \
               "movq %%r12, 32(%0)\n\t"                                     \
               "movq %%r13, 40(%0)\n\t"                                     \
               "movq %%r14, 48(%0)\n\t"                                     \
               "movq %%r15, 56(%0)"                                          \
               :                                                             \
               : "r"(regs)                                                   \
               : "rax", "memory")
#else
#define CPROF_SAVE_REGISTERS(regs) ((void)(regs))
#endif

// Returns `call` (an expression that sleeps) made with the sampling signal held, then let
// in again keeping the call's errno (the sampling handler keeps it too). `call` may name
// `held`, the SamplingSignalHeld, for a mask it installs: held.with_signal(mask, copy).
// While it sleeps the thread's state says since when and from where, so that the exit
// path can write the sample of a call the process ends in (Runtime::write_held_calls_locked).
#define CPROF_RETURN_HELD(call)                                       \
  do {                                                                \
    const SamplingSignalHeld held;                                    \
    if (held.held()) {                                                \
      CPROF_SAVE_REGISTERS(&held.state()->held_registers);            \
      held.state()->held_since_ns.store(cprof::monotonic_ns(),      \
                                        std::memory_order_release);   \
    }                                                                 \
    const auto cprof_result_ = (call);                                \
    if (held.held()) {                                                \
      const int cprof_errno_ = errno;                                 \
      held.state()->held_since_ns.store(0, std::memory_order_relaxed); \
      CPROF_UNBLOCK_INLINE(held.signal_set());                        \
      errno = cprof_errno_;                                           \
    }                                                                 \
    return cprof_result_;                                             \
  } while (0)

// Blocks the sampling signal in the calling thread, when wall-clock sampling runs and the
// thread is sampled (and the signal was not blocked already); CPROF_RETURN_HELD lets it in.
class SamplingSignalHeld {
 public:
  SamplingSignalHeld() {
    const sampler::Runtime* rt = sampler::Runtime::instance();
    if (rt == nullptr || !rt->config().wall_clock) return;
    state_ = sampler::ThreadRegistry::current();
    if (state_ == nullptr) {
      return;
    }
    signal_ = rt->config().signal;
    sigemptyset(&ours_);
    sigaddset(&ours_, signal_);
    sigset_t before;
    held_ = sampler::real_pthread_sigmask(SIG_BLOCK, &ours_, &before) == 0 &&
            sigismember(&before, signal_) == 0;
  }
  bool held() const { return held_; }
  sampler::ThreadState* state() const { return state_; }
  const sigset_t* signal_set() const { return &ours_; }
  SamplingSignalHeld(const SamplingSignalHeld&) = delete;
  SamplingSignalHeld& operator=(const SamplingSignalHeld&) = delete;

  // A mask the call installs for its duration, with the sampling signal added (into
  // `copy`); the mask itself when nothing is held.
  const sigset_t* with_signal(const sigset_t* mask, sigset_t& copy) const {
    if (!held_ || mask == nullptr) return mask;
    copy = *mask;
    sigaddset(&copy, signal_);
    return &copy;
  }

 private:
  sigset_t ours_{};
  sampler::ThreadState* state_ = nullptr;
  int signal_ = 0;
  bool held_ = false;
};

bool zero(const timespec* t) { return t != nullptr && t->tv_sec == 0 && t->tv_nsec == 0; }
bool zero(const timeval* t) { return t != nullptr && t->tv_sec == 0 && t->tv_usec == 0; }

}  // namespace

CPROF_EXPORT int nanosleep(const timespec* request, timespec* remaining) {
  const auto next = cprof::real::nanosleep();
  if (zero(request)) return next(request, remaining);
  CPROF_RETURN_HELD(next(request, remaining));
}

CPROF_EXPORT int clock_nanosleep(clockid_t clock, int flags, const timespec* request,
                                 timespec* remaining) {
  const auto next = cprof::real::clock_nanosleep();
  CPROF_RETURN_HELD(next(clock, flags, request, remaining));
}

CPROF_EXPORT unsigned sleep(unsigned seconds) {
  const auto next = cprof::real::sleep();
  if (seconds == 0) return next(seconds);
  CPROF_RETURN_HELD(next(seconds));
}

CPROF_EXPORT int usleep(useconds_t microseconds) {
  const auto next = cprof::real::usleep();
  if (microseconds == 0) return next(microseconds);
  CPROF_RETURN_HELD(next(microseconds));
}

CPROF_EXPORT int select(int n, fd_set* read, fd_set* write, fd_set* except, timeval* timeout) {
  const auto next = cprof::real::select();
  if (zero(timeout)) return next(n, read, write, except, timeout);
  CPROF_RETURN_HELD(next(n, read, write, except, timeout));
}

CPROF_EXPORT int pselect(int n, fd_set* read, fd_set* write, fd_set* except,
                         const timespec* timeout, const sigset_t* mask) {
  const auto next = cprof::real::pselect();
  if (zero(timeout)) return next(n, read, write, except, timeout, mask);
  sigset_t copy;
  CPROF_RETURN_HELD(next(n, read, write, except, timeout, held.with_signal(mask, copy)));
}

CPROF_EXPORT int poll(pollfd* fds, nfds_t count, int timeout_ms) {
  const auto next = cprof::real::poll();
  if (timeout_ms == 0) return next(fds, count, timeout_ms);
  CPROF_RETURN_HELD(next(fds, count, timeout_ms));
}

// _FORTIFY_SOURCE's poll and ppoll (glibc calls its own poll from these, past the PLT).
CPROF_EXPORT int __poll_chk(pollfd* fds, nfds_t count, int timeout_ms, size_t fds_size) {
  const auto next = cprof::real::poll_chk();
  if (timeout_ms == 0) return next(fds, count, timeout_ms, fds_size);
  CPROF_RETURN_HELD(next(fds, count, timeout_ms, fds_size));
}

CPROF_EXPORT int ppoll(pollfd* fds, nfds_t count, const timespec* timeout, const sigset_t* mask) {
  const auto next = cprof::real::ppoll();
  if (zero(timeout)) return next(fds, count, timeout, mask);
  sigset_t copy;
  CPROF_RETURN_HELD(next(fds, count, timeout, held.with_signal(mask, copy)));
}

CPROF_EXPORT int __ppoll_chk(pollfd* fds, nfds_t count, const timespec* timeout,
                             const sigset_t* mask, size_t fds_size) {
  const auto next = cprof::real::ppoll_chk();
  if (zero(timeout)) return next(fds, count, timeout, mask, fds_size);
  sigset_t copy;
  CPROF_RETURN_HELD(next(fds, count, timeout, held.with_signal(mask, copy), fds_size));
}

CPROF_EXPORT int epoll_wait(int epfd, epoll_event* events, int max, int timeout_ms) {
  const auto next = cprof::real::epoll_wait();
  if (timeout_ms == 0) return next(epfd, events, max, timeout_ms);
  CPROF_RETURN_HELD(next(epfd, events, max, timeout_ms));
}

CPROF_EXPORT int epoll_pwait(int epfd, epoll_event* events, int max, int timeout_ms,
                             const sigset_t* mask) {
  const auto next = cprof::real::epoll_pwait();
  if (timeout_ms == 0) return next(epfd, events, max, timeout_ms, mask);
  sigset_t copy;
  CPROF_RETURN_HELD(next(epfd, events, max, timeout_ms, held.with_signal(mask, copy)));
}

CPROF_EXPORT int sigsuspend(const sigset_t* mask) {
  const auto next = cprof::real::sigsuspend();
  sigset_t copy;
  CPROF_RETURN_HELD(next(held.with_signal(mask, copy)));
}

CPROF_EXPORT int pause() {
  const auto next = cprof::real::pause();
  CPROF_RETURN_HELD(next());
}

CPROF_EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  const auto next = cprof::real::sigwaitinfo();
  CPROF_RETURN_HELD(next(set, info));
}

CPROF_EXPORT int sigtimedwait(const sigset_t* set, siginfo_t* info, const timespec* timeout) {
  const auto next = cprof::real::sigtimedwait();
  if (zero(timeout)) return next(set, info, timeout);
  CPROF_RETURN_HELD(next(set, info, timeout));
}
