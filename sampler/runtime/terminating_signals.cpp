#include "sampler/runtime/terminating_signals.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"
#include "sampler/runtime/sanitizer_stack.h"
#include "sampler/runtime/signal_mask.h"

namespace cprof::sampler {
namespace {

// Every signal whose default action ends the process, less those the runtimes or debuggers
// use (SIGSYS: the causal runtime's dispatch; SIGTRAP: breakpoints; SIGPROF, SIGVTALRM:
// profilers' timers; the real-time signals: the sampling signal among them).
constexpr int kCaught[] = {SIGINT,  SIGTERM, SIGHUP,  SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
                           SIGQUIT, SIGABRT, SIGXCPU, SIGXFSZ, SIGSEGV, SIGBUS,  SIGILL,
                           SIGFPE};

std::atomic<bool> g_enabled{false};
// Per signal: the runtime's handler is installed (the program believes SIG_DFL).
std::atomic<bool> g_ours[NSIG];
// Per signal: the program's handler, set with SA_RESETHAND, is installed inside
// on_one_shot_signal (it has not run yet); g_program[sig] is the action the program set.
std::atomic<bool> g_one_shot[NSIG];
// Per signal (SIGABRT only): the program's handler is installed inside
// on_abort_handler_signal; g_program[sig] is the action the program set.
std::atomic<bool> g_watched[NSIG];
struct sigaction g_program[NSIG];

bool caught(int sig) {
  for (const int s : kCaught) {
    if (s == sig) return true;
  }
  return false;
}

int real_sigaction(int sig, const struct sigaction* action, struct sigaction* old) {
  return real::sigaction()(sig, action, old);
}

// A fault of the instruction this thread was running, with its own code (SEGV_MAPERR,
// BUS_ADRERR, FPE_INTDIV...): it faults again when the handler returns. Not a signal
// someone sent (si_code <= 0), nor one the kernel raised itself (SI_KERNEL: a general
// protection fault, but also a signal frame it could not write, after which returning
// would let the program run on).
bool is_fault(int sig, const siginfo_t* info) {
  return (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) && info != nullptr &&
         info->si_code > 0 && info->si_code != SI_KERNEL;
}

void on_terminating_signal(int sig, siginfo_t* info, void* ucontext) {
  unpoison_signal_frame(info, ucontext);  // sanitizer_stack.h
  if (Runtime* rt = Runtime::instance()) rt->write_before_dying(sig);
  g_ours[sig].store(false, std::memory_order_release);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real_sigaction(sig, &dfl, nullptr);
  // A fault: return to the instruction, which faults again and meets the default action,
  // so the core file holds the faulting thread's own registers and siginfo.
  if (is_fault(sig, info)) return;
  // Otherwise die of it: the signal sent again to this thread and unblocked (it is
  // blocked while its handler runs).
  ::syscall(SYS_tgkill, ::getpid(), ::syscall(SYS_gettid), sig);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  real_pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
}

int install(int sig) {
  struct sigaction ours {};
  ours.sa_sigaction = on_terminating_signal;
  // SA_ONSTACK: a thread with an alternate stack has its stack overflow written too.
  ours.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  // Nothing else runs on this thread while it waits for the writer, sampling included.
  sigfillset(&ours.sa_mask);
  for (const int sync : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) sigdelset(&ours.sa_mask, sync);
  const int rc = real_sigaction(sig, &ours, nullptr);
  if (rc == 0) g_ours[sig].store(true, std::memory_order_release);
  return rc;
}

bool is_default(const struct sigaction& a) {
  return (a.sa_flags & SA_SIGINFO) != 0 ? a.sa_sigaction == nullptr : a.sa_handler == SIG_DFL;
}

// A handler of the program's (not SIG_DFL, not SIG_IGN) that the kernel would reset to
// the default action as it runs it.
bool is_one_shot_handler(const struct sigaction& a) {
  return (a.sa_flags & SA_RESETHAND) != 0 && !is_default(a) &&
         ((a.sa_flags & SA_SIGINFO) != 0 || a.sa_handler != SIG_IGN);
}

// A handler of the program's for SIGABRT that may return inside abort(): glibc's abort()
// then puts the default action back with its own internal call, past the interposed
// sigaction(), and raises SIGABRT again, which ends the process with no handler of the
// runtime's in the way. (A one-shot handler is wrapped anyway, and handled alike.)
bool is_abort_handler(int sig, const struct sigaction& a) {
  return sig == SIGABRT && !is_default(a) && !is_one_shot_handler(a) &&
         ((a.sa_flags & SA_SIGINFO) != 0 || a.sa_handler != SIG_IGN);
}

// Runs the program's `program` handler as the kernel would have called it.
void call_program_handler(const struct sigaction& program, int sig, siginfo_t* info,
                          void* ucontext) {
  if ((program.sa_flags & SA_SIGINFO) != 0) {
    program.sa_sigaction(sig, info, ucontext);
  } else {
    program.sa_handler(sig);
  }
}

// After the program's SIGABRT handler returned: if this was abort(), the process ends the
// moment this returns, so what is not written yet is written now (the samples and the
// causal records; not the end records, for a SIGABRT someone sent lets the program run on).
void write_if_aborting(int sig) {
  if (sig != SIGABRT) return;
  const int saved_errno = errno;  // the handler returns into the program
  if (Runtime* rt = Runtime::instance()) rt->write_after_abort_handler();
  errno = saved_errno;
}

void on_abort_handler_signal(int sig, siginfo_t* info, void* ucontext) {
  const struct sigaction program = g_program[sig];  // the program may set another meanwhile
  call_program_handler(program, sig, info, ucontext);
  write_if_aborting(sig);
}

// The program's SA_RESETHAND handler, run the way the kernel would run it, except that
// the default action it leaves behind is the runtime's handler: the program's handler
// typically tidies up and raises the signal again (node restores the terminal), and that
// second signal then writes everything before it ends the process.
void on_one_shot_signal(int sig, siginfo_t* info, void* ucontext) {
  if (!g_one_shot[sig].exchange(false, std::memory_order_acq_rel)) {
    // Another thread ran it first (or the program replaced it meanwhile): for this one the
    // kernel would have found the default action.
    on_terminating_signal(sig, info, ucontext);
    return;
  }
  const struct sigaction program = g_program[sig];
  install(sig);  // the reset the kernel would have done, the default being the runtime's
  call_program_handler(program, sig, info, ucontext);
  write_if_aborting(sig);
}

// Installs the program's `action` for `sig` inside `wrapper_handler`, with its flags (less
// SA_RESETHAND: the wrapper does the reset) and mask, so it runs as it would have; `flag`
// (g_one_shot or g_watched) says the wrapper is there.
int install_wrapped(int sig, const struct sigaction& action,
                    void (*wrapper_handler)(int, siginfo_t*, void*), std::atomic<bool>& flag) {
  g_program[sig] = action;
  struct sigaction wrapper = action;
  constexpr int kResetHand = static_cast<int>(SA_RESETHAND);  // 0x80000000: unsigned
  wrapper.sa_flags = (action.sa_flags & ~kResetHand) | SA_SIGINFO;
  wrapper.sa_sigaction = wrapper_handler;
  flag.store(true, std::memory_order_release);
  return real_sigaction(sig, &wrapper, nullptr);
}

int install_one_shot(int sig, const struct sigaction& action) {
  return install_wrapped(sig, action, on_one_shot_signal, g_one_shot[sig]);
}

int install_abort_handler(int sig, const struct sigaction& action) {
  return install_wrapped(sig, action, on_abort_handler_signal, g_watched[sig]);
}

}  // namespace

void catch_terminating_signals() noexcept {
  // The first real_sigaction below also resolves the next definition, not in a handler.
  for (const int sig : kCaught) {
    struct sigaction current {};
    if (real_sigaction(sig, nullptr, &current) != 0) continue;
    if (is_default(current)) {
      install(sig);
    } else if (is_one_shot_handler(current)) {
      // Set before the runtime started (by a library's constructor: a program's
      // dependencies are initialized before the preloaded runtime): wrapped as if set now.
      install_one_shot(sig, current);
    } else if (is_abort_handler(sig, current)) {
      install_abort_handler(sig, current);
    }
  }
  g_enabled.store(true, std::memory_order_release);
}

bool terminating_sigaction(int sig, const struct sigaction* action, struct sigaction* old,
                           int& result) noexcept {
  if (!caught(sig) || !g_enabled.load(std::memory_order_acquire)) return false;
  const bool ours = g_ours[sig].load(std::memory_order_acquire);
  const bool one_shot = g_one_shot[sig].load(std::memory_order_acquire);
  const bool watched = g_watched[sig].load(std::memory_order_acquire);
  const bool wants_default = action != nullptr && is_default(*action);
  const bool wants_one_shot = action != nullptr && is_one_shot_handler(*action);
  const bool wants_watched = action != nullptr && is_abort_handler(sig, *action);
  struct sigaction wanted {};
  if (action != nullptr) wanted = *action;  // `old` may be the same object
  if (!ours && !one_shot && !watched && !wants_default && !wants_one_shot && !wants_watched) {
    return false;  // the program's own business
  }
  if (old != nullptr) {
    if (ours) {
      *old = {};
      old->sa_handler = SIG_DFL;  // what the program set, or found at start
      sigemptyset(&old->sa_mask);
    } else if (one_shot || watched) {
      *old = g_program[sig];
    } else if (real_sigaction(sig, nullptr, old) != 0) {
      result = -1;
      return true;
    }
  }
  if (action == nullptr) {
    result = 0;
  } else if (wants_default) {
    g_one_shot[sig].store(false, std::memory_order_release);
    g_watched[sig].store(false, std::memory_order_release);
    result = ours ? 0 : install(sig);  // the default, with the runtime's handler
  } else {
    // A handler or SIG_IGN of the program's replaces the runtime's (a one-shot handler, and
    // one for SIGABRT, run inside wrappers of the runtime's).
    g_ours[sig].store(false, std::memory_order_release);
    g_one_shot[sig].store(false, std::memory_order_release);
    g_watched[sig].store(false, std::memory_order_release);
    result = wants_one_shot   ? install_one_shot(sig, wanted)
             : wants_watched ? install_abort_handler(sig, wanted)
                             : real_sigaction(sig, &wanted, nullptr);
    if (result != 0) {
      g_ours[sig].store(ours, std::memory_order_release);
      g_one_shot[sig].store(one_shot, std::memory_order_release);
      g_watched[sig].store(watched, std::memory_order_release);
    }
  }
  return true;
}

bool signal_through(SigactionPart part, int sig, sighandler_t handler,
                    sighandler_t& previous) noexcept {
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;  // glibc's signal(): restart, the signal blocked while it runs
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, sig);
  struct sigaction old {};
  int result = 0;
  if (!part(sig, &action, &old, result)) return false;
  previous = result == 0 ? old.sa_handler : SIG_ERR;  // the union's handler, either kind
  return true;
}

bool terminating_signal(int sig, sighandler_t handler, sighandler_t& previous) noexcept {
  return signal_through(terminating_sigaction, sig, handler, previous);
}

}  // namespace cprof::sampler
