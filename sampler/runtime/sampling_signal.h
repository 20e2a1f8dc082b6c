#pragma once
// The sampling signal and the program's own use of it (docs/sampler.md, "The sampling
// signal").
//
// At start the runtime takes a real-time signal that nothing in the process handles yet
// (from SIGRTMAX-2 down; CPROF_SIGNAL names one instead). A program may still claim that
// signal later (a handler on every real-time signal, a library that picks the same one):
// the runtime's handler stays installed and tells its own signals (the engines' timers and
// perf events, engine.h weigh()) from the program's, and every signal that is not the
// runtime's runs the action the program set, as the kernel would have run it: with the
// program's sa_mask and flags (SA_NODEFER, SA_RESETHAND, SA_SIGINFO), and held while the
// program believes the calling thread blocks the signal (signal_mask.h), delivered when
// it unblocks it. sigaction() and signal() report the program's action; the runtime's
// samples never reach the program's handler.
//
// Signal-safety: forward_to_program() and deliver_deferred_signal() run in signal context
// or in the mask interposers and are async-signal-safe (sigaction/sigprocmask/tgsigqueueinfo
// system calls and atomics on static storage).

#include <signal.h>

namespace cprof::sampler {

// A real-time signal whose action is SIG_DFL now, from SIGRTMAX-2 down to SIGRTMIN; the
// runtime installs its handler on it. SIGRTMAX-2 when every one is taken.
int choose_sampling_signal() noexcept;

// Installs `handler` on `sig` (past the interposed sigaction()) and makes `sig` the
// sampling signal. The handler runs with every signal blocked but the synchronous ones
// (a fault, a trap, SIGSYS of syscall dispatch): no handler of the program's can run
// inside it and leave it by longjmp. Returns sigaction's result.
int install_sampling_handler(int sig, void (*handler)(int, siginfo_t*, void*)) noexcept;
int sampling_signal() noexcept;

// The interposers' part of sigaction(): true when `sig` is the sampling signal and the
// call was handled here (result in `result`): the program's action is kept aside, not
// installed. false: forward the call.
bool sampling_sigaction(int sig, const struct sigaction* action, struct sigaction* old,
                        int& result) noexcept;
// The same for signal() (glibc's BSD semantics).
bool sampling_signal_handler(int sig, sighandler_t handler, sighandler_t& previous) noexcept;

// In the runtime's handler, for a signal that is not a sample: runs the program's action
// (nothing when it set none, or SIG_IGN, or SIG_DFL: the runtime's own late timer signals
// must never end the process), or holds the signal when the program blocks it here.
void forward_to_program(int sig, siginfo_t* info, void* ucontext) noexcept;

// In the mask interposers, once the program unblocks the sampling signal in this thread:
// sends again the signal held for it, if any.
void deliver_deferred_signal() noexcept;

}  // namespace cprof::sampler
