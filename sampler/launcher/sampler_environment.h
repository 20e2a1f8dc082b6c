#pragma once
// What both launchers (sample-run, causal-run) tell the sampling runtime: one
// RuntimeConfig (sampler/runtime/config.h) turned into the child's environment, and the
// backend this machine allows.

#include <string>

#include "sampler/launcher/launch.h"
#include "sampler/runtime/config.h"

namespace cprof::launch {

// With config.backend "auto": "perf" where this machine opens the perf event the runtime
// would open, else "timer". Returns the note to print when perf_event_open refused ("").
std::string resolve_auto_backend(sampler::RuntimeConfig& config);

// Sets LD_PRELOAD (config.preload_library after the caller's own) and the runtime's
// variables for `config` in `env`.
void add_sampler_environment(ChildEnvironment& env, const sampler::RuntimeConfig& config);

}  // namespace cprof::launch
