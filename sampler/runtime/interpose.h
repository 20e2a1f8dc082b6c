#pragma once
// Access to the interposed functions' next definitions, for the runtime's own use.

#include "sampler/runtime/runtime.h"

namespace cprof::sampler {

// The real pthread_create (the runtime's own threads must not be sampled).
RealPthreadCreate real_pthread_create();

}  // namespace cprof::sampler
