#pragma once
// Access to the interposed functions' next definitions, for the runtime's own use.

#include "sampler/runtime/runtime.h"

namespace cprof::sampler {

// The real pthread_create (the runtime's own threads must not be sampled).
RealPthreadCreate real_pthread_create();

// A call of libc's syscall() that execs (SYS_execve, SYS_execveat), with its six
// arguments: made through the interposed exec calls instead, so that the new image is
// profiled and no sampling signal reaches it. False, untouched, for any other number.
bool exec_system_call(long number, const long args[6], long& result);

}  // namespace cprof::sampler
