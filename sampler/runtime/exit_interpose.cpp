// _exit() and _Exit(), interposed: they end the process without the exit path (atexit
// handlers, library destructors), so without the runtime's last write the samples since
// the last chunk, the threads' end records and the last metrics would be lost. That is how
// forked workers usually end (Python's multiprocessing calls os._exit(), servers' workers
// and many signal handlers call _exit()). Before forwarding, the call has the writer
// thread write everything (Runtime::write_before_dying, async-signal-safe: a handler may
// call _exit()); then it forwards to the next definition (RTLD_NEXT) with the same status.
// In a vfork child, or while the exit path runs, it forwards at once.
//
// quick_exit() runs the at_quick_exit handlers and then ends through libc's own _exit,
// past the interposer: the runtime registers a handler of its own at load, before the
// program's, so it runs last, after the program's handlers, and has everything written.

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"
#include "sampler/runtime/signal_mask.h"

namespace {

namespace sampler = cprof::sampler;

using ExitFn = void (*)(int);

void write_before_exit() {
  if (sampler::Runtime* rt = sampler::Runtime::instance()) {
    // No handler of the program's may run while this thread waits for the writer: without
    // the runtime the process would be gone already, and a signal coming now would find
    // nothing to run.
    sigset_t all;
    sigfillset(&all);
    sampler::real_pthread_sigmask(SIG_BLOCK, &all, nullptr);
    rt->write_before_dying(0);
  }
}

// At load, the at_quick_exit handler, registered before the program can register its
// own. (The next definitions of _exit and _Exit are looked up at load too, real.h, so
// that a handler's _exit() does not call dlsym.)
__attribute__((constructor)) void set_up_exit_paths() { at_quick_exit(write_before_exit); }

[[noreturn]] void write_and_exit(ExitFn next, int status) {
  write_before_exit();
  if (next != nullptr) next(status);
  for (;;) ::syscall(SYS_exit_group, status);
}

}  // namespace

CPROF_EXPORT void _exit(int status) { write_and_exit(cprof::real::exit_now(), status); }

CPROF_EXPORT void _Exit(int status) { write_and_exit(cprof::real::Exit_now(), status); }
