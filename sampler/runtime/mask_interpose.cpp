// The sampling runtime's signal-mask interposers: the program's masks never block the
// sampling signal in a sampled thread (signal_mask.h). The causal runtime has its own
// (causal/runtime/signal_interpose.cpp), which keeps SIGSYS too.

#include <signal.h>

#include "sampler/runtime/real.h"
#include "sampler/runtime/signal_mask.h"

CPROF_EXPORT int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  return cprof::sampler::program_mask_call(&cprof::sampler::real_pthread_sigmask, how, set, old);
}

CPROF_EXPORT int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  return cprof::sampler::program_mask_call(&cprof::sampler::real_sigprocmask, how, set, old);
}
