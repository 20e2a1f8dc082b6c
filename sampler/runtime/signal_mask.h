#pragma once
// The sampling signal stays deliverable in every sampled thread, whatever mask the program
// sets. Programs that block every signal in their worker threads (xz, servers that leave
// signals to one thread) would otherwise leave those threads unsampled and, under
// causal-run, without their delays. The program keeps its own view: pthread_sigmask and
// sigprocmask report the sampling signal as blocked whenever it asked for that, and a new
// thread inherits its creator's view with its mask (docs/sampler.md, "Signal masks").

#include <signal.h>

namespace cprof::sampler {

using MaskFunction = int (*)(int how, const sigset_t* set, sigset_t* old);

// libc's own (the next definitions after the interposers, real.h, looked up at load): the
// runtime masks through these. Async-signal-safe.
int real_pthread_sigmask(int how, const sigset_t* set, sigset_t* old);
int real_sigprocmask(int how, const sigset_t* set, sigset_t* old);

// pthread_sigmask or sigprocmask (`real`) as the program called it. In a sampled thread
// the sampling signal is left out of what it blocks, and `old` shows it as the program
// last set it; elsewhere the call is forwarded as it is. Result and errno are `real`'s.
int program_mask_call(MaskFunction real, int how, const sigset_t* set, sigset_t* old);

// Whether the program believes the calling thread blocks the sampling signal.
bool program_blocks_sampling_signal();

// In a thread being registered for sampling: unblocks `signal` if the mask the thread
// started with blocks it, and takes that, or `inherited` (its creator's view), as the
// program's view of it.
void keep_sampling_signal_deliverable(int signal, bool inherited);

// Before an exec: blocks `signal` in the calling thread if the program believes it is
// blocked there, so that the new image starts with the mask the program set. Returns
// whether it blocked it; if the exec fails, keep_sampling_signal_deliverable() undoes it.
bool apply_program_mask_for_exec(int signal);

}  // namespace cprof::sampler
