// Entry and exit of the preloaded sampling runtime (libcprof-sampler.so).

#include <pthread.h>

#include <cstdio>

#include "sampler/runtime/interpose.h"
#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"

namespace {

__attribute__((constructor)) void cprof_sampler_start() {
  std::vector<std::string> problems;
  auto config = cprof::sampler::config_from_environment(problems);
  if (cprof::sampler::Runtime::start(std::move(config), std::move(problems),
                                     cprof::real::pthread_create()) != nullptr) {
    cprof::sampler::register_fork_handlers();
  }
}

__attribute__((destructor)) void cprof_sampler_stop() {
  if (auto* rt = cprof::sampler::Runtime::instance()) rt->stop();
}

}  // namespace
