// Keeps SIGSYS usable for Syscall User Dispatch (syscall_dispatch.h) while it is on: the
// program can neither block SIGSYS in a thread that traps (the kernel would kill the
// process at the next trap, docs/causal.md) nor replace the handler; the SIGSYS action it
// installs is kept aside and run for the SIGSYS that dispatch did not raise. With
// dispatch off (no libgomp) SIGSYS is left alone. The masks never block the sampling
// signal either (sampler/runtime/signal_mask.h). Each forwards faithfully to the next
// definition (RTLD_NEXT): same arguments, result and errno.

#include <signal.h>

#include <cerrno>

#include "causal/runtime/real_calls.h"
#include "causal/runtime/syscall_dispatch.h"
#include "sampler/runtime/real.h"
#include "sampler/runtime/sampling_signal.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/terminating_signals.h"

namespace cprof::causal {
namespace {

// `set` without SIGSYS when the calling thread traps and the call would block it.
const sigset_t* keep_sigsys(int how, const sigset_t* set, sigset_t& copy) {
  if (set == nullptr || how == SIG_UNBLOCK || !dispatch::thread_on() || !sigismember(set, SIGSYS)) {
    return set;
  }
  copy = *set;
  sigdelset(&copy, SIGSYS);
  return &copy;
}

}  // namespace

}  // namespace cprof::causal

namespace causal = cprof::causal;
namespace sampler = cprof::sampler;
namespace dispatch = cprof::causal::dispatch;

CPROF_EXPORT int sigaction(int sig, const struct sigaction* action, struct sigaction* old) {
  if (int result = 0; sampler::terminating_sigaction(sig, action, old, result) ||
                      sampler::sampling_sigaction(sig, action, old, result)) {
    return result;
  }
  if (sig == SIGSYS && dispatch::active()) {
    // Ours stays installed; the program's is what it sees and what chain() runs.
    if (old != nullptr) dispatch::program_action(old);
    if (action != nullptr) dispatch::set_program_action(*action);
    return 0;
  }
  struct sigaction copy;
  if (action != nullptr && dispatch::active() && sigismember(&action->sa_mask, SIGSYS)) {
    // A handler that blocks SIGSYS while it runs would die at its first trap.
    copy = *action;
    sigdelset(&copy.sa_mask, SIGSYS);
    action = &copy;
  }
  return causal::real_sigaction_call(sig, action, old);
}

CPROF_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  if (sighandler_t previous = SIG_DFL; sampler::terminating_signal(sig, handler, previous) ||
                                       sampler::sampling_signal_handler(sig, handler, previous)) {
    return previous;
  }
  if (sig != SIGSYS || !dispatch::active()) {
    return cprof::real::signal()(sig, handler);
  }
  // glibc's signal(): BSD semantics (restart, the signal blocked while it runs).
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, sig);
  struct sigaction old {};
  dispatch::program_action(&old);
  dispatch::set_program_action(action);
  return old.sa_handler;
}

CPROF_EXPORT int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  sigset_t copy;
  return sampler::program_mask_call(&sampler::real_pthread_sigmask, how,
                                    causal::keep_sigsys(how, set, copy), old);
}

CPROF_EXPORT int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  sigset_t copy;
  return sampler::program_mask_call(&sampler::real_sigprocmask, how,
                                    causal::keep_sigsys(how, set, copy), old);
}
