#include "sampler/launcher/sampler_environment.h"

#include "sampler/engines/engine.h"

namespace cprof::launch {

std::string resolve_auto_backend(sampler::RuntimeConfig& config) {
  if (config.backend != "auto") return {};
  const std::string why =
      sampler::make_perf_event_engine(sampler::engine_settings(config))->probe();
  config.backend = why.empty() ? "perf" : "timer";
  if (why.empty()) return {};
  return "perf_event_open refused (" + why + "); sampling with POSIX CPU-time timers";
}

void add_sampler_environment(ChildEnvironment& env, const sampler::RuntimeConfig& config) {
  env.set.emplace_back("LD_PRELOAD", preload_value(config.preload_library));
  for (auto& variable : sampler::environment_of(config)) env.set.push_back(std::move(variable));
}

}  // namespace cprof::launch
