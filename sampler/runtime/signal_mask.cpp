#include "sampler/runtime/signal_mask.h"

#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"
#include "sampler/runtime/sampling_signal.h"
#include "sampler/runtime/thread_registry.h"

namespace cprof::sampler {
namespace {

// Whether the program asked this thread to block the sampling signal (the kernel's mask
// never has it blocked while the thread is sampled).
thread_local bool t_program_blocks = false;

}  // namespace

int real_pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  return real::pthread_sigmask()(how, set, old);
}

int real_sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  return real::sigprocmask()(how, set, old);
}

int program_mask_call(MaskFunction real, int how, const sigset_t* set, sigset_t* old) {
  const Runtime* rt = Runtime::instance();
  if (rt == nullptr || ThreadRegistry::current() == nullptr) return real(how, set, old);
  const int signal = rt->config().signal;
  bool blocks = t_program_blocks;
  sigset_t without;
  if (set != nullptr) {
    const bool named = sigismember(set, signal) == 1;
    switch (how) {
      case SIG_BLOCK: blocks = blocks || named; break;
      case SIG_UNBLOCK: blocks = blocks && !named; break;
      case SIG_SETMASK: blocks = named; break;
      default: return real(how, set, old);  // libc's EINVAL
    }
    if (named && how != SIG_UNBLOCK) {
      without = *set;
      sigdelset(&without, signal);
      set = &without;
    }
  }
  const bool blocked_before = t_program_blocks;
  const int rc = real(how, set, old);
  if (rc != 0) return rc;
  t_program_blocks = blocks;
  // A signal of the program's held while it blocked the signal (sampling_signal.h).
  if (blocked_before && !blocks) deliver_deferred_signal();
  // The program's view, whatever the kernel's mask holds: the runtime blocks the signal
  // for a while itself (a sleeping call under --clock wall, sleep_interpose.cpp), and a
  // handler of the program's that runs then would read that.
  if (old != nullptr && blocked_before) {
    sigaddset(old, signal);
  } else if (old != nullptr) {
    sigdelset(old, signal);
  }
  return rc;
}

bool program_blocks_sampling_signal() { return t_program_blocks; }

void keep_sampling_signal_deliverable(int signal, bool inherited) {
  sigset_t current;
  bool blocked = false;
  if (real_pthread_sigmask(SIG_BLOCK, nullptr, &current) == 0 &&
      sigismember(&current, signal) == 1) {
    sigset_t ours;
    sigemptyset(&ours);
    sigaddset(&ours, signal);
    blocked = real_pthread_sigmask(SIG_UNBLOCK, &ours, nullptr) == 0;
  }
  t_program_blocks = inherited || blocked;
}

bool apply_program_mask_for_exec(int signal) {
  if (!t_program_blocks) return false;
  sigset_t ours;
  sigemptyset(&ours);
  sigaddset(&ours, signal);
  return real_pthread_sigmask(SIG_BLOCK, &ours, nullptr) == 0;
}

}  // namespace cprof::sampler
