// Entry and exit of the preloaded sampling runtime (libcprof-sampler.so).

#include <pthread.h>

#include <cstdio>

#include "sampler/runtime/interpose.h"
#include "sampler/runtime/runtime.h"

namespace {

void fork_prepare() {
  if (auto* rt = cprof::sampler::Runtime::instance()) rt->before_fork();
}
void fork_parent() {
  if (auto* rt = cprof::sampler::Runtime::instance()) rt->after_fork_in_parent();
}
void fork_child() {
  if (auto* rt = cprof::sampler::Runtime::instance()) rt->after_fork_in_child();
}

__attribute__((constructor)) void cprof_sampler_start() {
  std::vector<std::string> problems;
  auto config = cprof::sampler::config_from_environment(problems);
  if (cprof::sampler::Runtime::start(std::move(config), std::move(problems),
                                     cprof::sampler::real_pthread_create()) != nullptr) {
    pthread_atfork(fork_prepare, fork_parent, fork_child);
  }
}

__attribute__((destructor)) void cprof_sampler_stop() {
  if (auto* rt = cprof::sampler::Runtime::instance()) rt->stop();
}

}  // namespace
