#include "sampler/runtime/sampling_signal.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "sampler/runtime/real.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/terminating_signals.h"

namespace cprof::sampler {
namespace {

std::atomic<int> g_signal{0};

// The program's action for the sampling signal, under a sequence lock: odd while it is
// written (with every signal blocked in the writing thread, so that no handler on that
// thread can wait for it), read by the handler on any thread.
std::atomic<uint32_t> g_sequence{0};
std::atomic<bool> g_writing{false};
struct sigaction g_action;
bool g_action_set = false;

// A signal of the program's that came while it believed this thread blocks it.
thread_local bool t_deferred = false;
thread_local siginfo_t t_deferred_info;

int real_sigaction(int sig, const struct sigaction* action, struct sigaction* old) {
  return real::sigaction()(sig, action, old);
}

bool is_handler(const struct sigaction& a) {
  if ((a.sa_flags & SA_SIGINFO) != 0) return a.sa_sigaction != nullptr;
  return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

void write_action(const struct sigaction* action) noexcept {
  sigset_t all;
  sigset_t saved;
  sigfillset(&all);
  real_pthread_sigmask(SIG_BLOCK, &all, &saved);
  bool expected = false;
  while (!g_writing.compare_exchange_weak(expected, true, std::memory_order_acquire)) {
    expected = false;
  }
  g_sequence.fetch_add(1, std::memory_order_acq_rel);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_action_set = action != nullptr;
  if (action != nullptr) g_action = *action;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_sequence.fetch_add(1, std::memory_order_acq_rel);
  g_writing.store(false, std::memory_order_release);
  real_pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

// false: the program set no action (it believes SIG_DFL).
bool read_action(struct sigaction& out) noexcept {
  for (;;) {
    const uint32_t before = g_sequence.load(std::memory_order_acquire);
    if ((before & 1U) != 0) continue;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const bool set = g_action_set;
    if (set) out = g_action;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (g_sequence.load(std::memory_order_acquire) == before) return set;
  }
}

}  // namespace

int choose_sampling_signal() noexcept {
  for (int sig = SIGRTMAX - 2; sig >= SIGRTMIN; --sig) {
    struct sigaction current {};
    if (real_sigaction(sig, nullptr, &current) != 0) continue;
    const bool default_action = (current.sa_flags & SA_SIGINFO) != 0
                                    ? current.sa_sigaction == nullptr
                                    : current.sa_handler == SIG_DFL;
    if (default_action) return sig;
  }
  return SIGRTMAX - 2;
}

int install_sampling_handler(int sig, void (*handler)(int, siginfo_t*, void*)) noexcept {
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);
  for (const int sync : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS}) {
    sigdelset(&sa.sa_mask, sync);
  }
  const int rc = real_sigaction(sig, &sa, nullptr);
  if (rc == 0) g_signal.store(sig, std::memory_order_release);
  return rc;
}

int sampling_signal() noexcept { return g_signal.load(std::memory_order_acquire); }

bool sampling_sigaction(int sig, const struct sigaction* action, struct sigaction* old,
                        int& result) noexcept {
  if (sig <= 0 || sig != sampling_signal()) return false;
  struct sigaction wanted {};
  if (action != nullptr) wanted = *action;  // `old` may be the same object
  if (old != nullptr) {
    struct sigaction current {};
    if (read_action(current)) {
      *old = current;
    } else {
      *old = {};
      old->sa_handler = SIG_DFL;
      sigemptyset(&old->sa_mask);
    }
  }
  if (action != nullptr) write_action(&wanted);
  result = 0;
  return true;
}

bool sampling_signal_handler(int sig, sighandler_t handler, sighandler_t& previous) noexcept {
  return signal_through(sampling_sigaction, sig, handler, previous);
}

void forward_to_program(int sig, siginfo_t* info, void* ucontext) noexcept {
  struct sigaction action {};
  if (!read_action(action) || !is_handler(action)) return;
  if (program_blocks_sampling_signal()) {
    if (!t_deferred && info != nullptr) {
      t_deferred_info = *info;
      t_deferred = true;
    }
    return;
  }
  if ((action.sa_flags & SA_RESETHAND) != 0) {
    struct sigaction reset {};
    reset.sa_handler = SIG_DFL;
    sigemptyset(&reset.sa_mask);
    write_action(&reset);
  }
  // The mask the kernel would have set for the program's handler: the interrupted code's,
  // its sa_mask, and the signal itself unless SA_NODEFER.
  sigset_t mask = static_cast<const ucontext_t*>(ucontext)->uc_sigmask;
  sigorset(&mask, &mask, &action.sa_mask);
  if ((action.sa_flags & SA_NODEFER) == 0) sigaddset(&mask, sig);
  sigset_t saved;
  real_pthread_sigmask(SIG_SETMASK, &mask, &saved);
  if ((action.sa_flags & SA_SIGINFO) != 0) {
    action.sa_sigaction(sig, info, ucontext);
  } else {
    action.sa_handler(sig);
  }
  real_pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

void deliver_deferred_signal() noexcept {
  if (!t_deferred) return;
  t_deferred = false;
  siginfo_t info = t_deferred_info;
  ::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), ::syscall(SYS_gettid), info.si_signo, &info);
}

}  // namespace cprof::sampler
