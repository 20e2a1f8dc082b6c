#pragma once
// The signals whose default action ends the process: SIGINT (^C), SIGTERM (kill, timeout),
// SIGHUP, SIGPIPE (`prog | head`), SIGALRM, SIGUSR1, SIGUSR2, and those that also dump core:
// a crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE), abort() (assert, an uncaught exception),
// SIGQUIT, SIGXCPU, SIGXFSZ. Where the program leaves one at its default action, the
// runtime catches it, has the writer thread write what is not written yet (the samples
// since the last chunk, the threads' end records, the last metrics), and then ends the
// process with that same signal, as the default action would have (docs/sampler.md,
// "Ending by a signal or `_exit()`"). The writer is given at most a second. A fault
// returns to the faulting instruction with the default action back, so that it faults
// again: the core file is the one the program would have written.
//
// The program sees the default action: the interposed sigaction() and signal() report
// SIG_DFL while the runtime's handler is there; a handler (or SIG_IGN) the program sets
// replaces it, and SIG_DFL set again puts it back. A handler set with SA_RESETHAND (node's
// SIGINT handler restores the terminal and raises the signal again) runs inside a wrapper
// that does the kernel's reset itself, putting the runtime's handler back as the default,
// so the signal raised again writes everything too; sigaction() reports the program's
// action until it has run, SIG_DFL after.
//
// A SIGABRT handler of the program's that returns inside abort() is followed by glibc's
// own reset to the default action (past sigaction()) and a second SIGABRT that ends the
// process: the handler runs inside a wrapper that, once it returns, has the writer write
// the samples so far (not the end records: the program may go on, if the SIGABRT was
// sent rather than abort()'s). Handlers of both kinds that the runtime finds when it starts
// (a library's constructor set them: dependencies are initialized before the preloaded
// runtime) are wrapped then.

#include <signal.h>

namespace cprof::sampler {

// At runtime start: catch those signals that are at their default action.
void catch_terminating_signals() noexcept;

// The interposers' part of sigaction(): true when `sig` is one of those signals and the
// call was handled here (its result in `result`); false: forward the call as it is.
bool terminating_sigaction(int sig, const struct sigaction* action, struct sigaction* old,
                           int& result) noexcept;
// The same for signal() (glibc's BSD semantics); false: forward the call.
bool terminating_signal(int sig, sighandler_t handler, sighandler_t& previous) noexcept;

// signal() made from an interposer's part of sigaction() (`part`: terminating_sigaction,
// sampling_sigaction): glibc's BSD semantics (restart, the signal blocked while its
// handler runs), the previous handler in `previous` (SIG_ERR when the call failed).
// false: `part` left the call to the next definition.
using SigactionPart = bool (*)(int, const struct sigaction*, struct sigaction*, int&) noexcept;
bool signal_through(SigactionPart part, int sig, sighandler_t handler,
                    sighandler_t& previous) noexcept;

// The message the runtime writes once everything is written, before the signal ends the
// process: "everything was written before SIGTERM ended the process". The launchers'
// summary looks for it.
inline constexpr const char* kWrittenBeforeSignal = "everything was written before ";
// The message written (once) when a SIGABRT handler of the program's has returned and the
// runtime wrote what it had, in case abort() ends the process next.
inline constexpr const char* kWrittenAfterAbortHandler =
    "samples written when the program's SIGABRT handler returned";

}  // namespace cprof::sampler
