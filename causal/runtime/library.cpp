// Entry and exit of the preloaded causal runtime (libcprof-causal.so): the sampling
// runtime with the causal hooks set (causal_runtime.h).

#include <pthread.h>

#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/syscall_dispatch.h"
#include "sampler/runtime/interpose.h"
#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"

namespace {

__attribute__((constructor)) void cprof_causal_start() {
  cprof::causal::dispatch::configure_from_environment();
  std::vector<std::string> problems;
  auto config = cprof::sampler::config_from_environment(problems);
  cprof::causal::CausalRuntime* causal = cprof::causal::CausalRuntime::start();
  if (cprof::sampler::Runtime::start(std::move(config), std::move(problems),
                                     cprof::real::pthread_create()) != nullptr) {
    cprof::sampler::register_fork_handlers();
    if (causal != nullptr) {
      causal->start_dispatch();  // the threads are registered by now
      causal->start_controller();
    }
  }
}

__attribute__((destructor)) void cprof_causal_stop() {
  if (auto* causal = cprof::causal::CausalRuntime::instance()) causal->stop();
  if (auto* rt = cprof::sampler::Runtime::instance()) rt->stop();
}

}  // namespace
