// sigaction() and signal(), interposed by the sampling runtime so that the program sees
// the default action where the runtime catches a terminating signal to write everything
// first (terminating_signals.h). Every other call forwards to the next definition
// (RTLD_NEXT) with the same arguments, result and errno. (The causal runtime has its own
// pair, causal/runtime/signal_interpose.cpp, which does this and keeps SIGSYS.)

#include <signal.h>

#include <atomic>

#include "sampler/runtime/next_definition.h"
#include "sampler/runtime/sampling_signal.h"
#include "sampler/runtime/terminating_signals.h"

namespace {

namespace sampler = cprof::sampler;

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
using SignalFn = sighandler_t (*)(int, sighandler_t);
std::atomic<SigactionFn> g_sigaction{nullptr};
std::atomic<SignalFn> g_signal{nullptr};

}  // namespace

#define CPROF_EXPORT extern "C" __attribute__((visibility("default")))

CPROF_EXPORT int sigaction(int sig, const struct sigaction* action, struct sigaction* old) {
  int result = 0;
  if (sampler::terminating_sigaction(sig, action, old, result)) return result;
  if (sampler::sampling_sigaction(sig, action, old, result)) return result;
  return sampler::next_definition(g_sigaction, "sigaction")(sig, action, old);
}

CPROF_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  sighandler_t previous = SIG_DFL;
  if (sampler::terminating_signal(sig, handler, previous)) return previous;
  if (sampler::sampling_signal_handler(sig, handler, previous)) return previous;
  return sampler::next_definition(g_signal, "signal")(sig, handler);
}
