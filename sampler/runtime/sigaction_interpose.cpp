// sigaction() and signal(), interposed by the sampling runtime so that the program sees
// the default action where the runtime catches a terminating signal to write everything
// first (terminating_signals.h). Every other call forwards to the next definition
// (RTLD_NEXT) with the same arguments, result and errno. (The causal runtime has its own
// pair, causal/runtime/signal_interpose.cpp, which does this and keeps SIGSYS.)

#include <signal.h>

#include <atomic>

#include "sampler/runtime/real.h"
#include "sampler/runtime/sampling_signal.h"
#include "sampler/runtime/terminating_signals.h"

namespace {

namespace sampler = cprof::sampler;

}  // namespace

CPROF_EXPORT int sigaction(int sig, const struct sigaction* action, struct sigaction* old) {
  int result = 0;
  if (sampler::terminating_sigaction(sig, action, old, result)) return result;
  if (sampler::sampling_sigaction(sig, action, old, result)) return result;
  return cprof::real::sigaction()(sig, action, old);
}

CPROF_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  sighandler_t previous = SIG_DFL;
  if (sampler::terminating_signal(sig, handler, previous)) return previous;
  if (sampler::sampling_signal_handler(sig, handler, previous)) return previous;
  return cprof::real::signal()(sig, handler);
}
