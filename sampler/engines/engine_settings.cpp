#include "sampler/engines/engine.h"
#include "sampler/runtime/config.h"

namespace cprof::sampler {

EngineSettings engine_settings(const RuntimeConfig& config, unsigned slot) {
  return EngineSettings{config.signal, static_cast<uint64_t>(1e9 / config.frequency_hz), slot};
}

}  // namespace cprof::sampler
