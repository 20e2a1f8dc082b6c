#pragma once
// What the interposers of thread creation, loading and exec (interpose.cpp) offer the
// rest of the runtime. The next definitions themselves are in real.h.

#include "sampler/runtime/runtime.h"

namespace cprof::sampler {

// A call of libc's syscall() that execs (SYS_execve, SYS_execveat), with its six
// arguments: made through the interposed exec calls instead, so that the new image is
// profiled and no sampling signal reaches it. False, untouched, for any other number.
bool exec_system_call(long number, const long args[6], long& result);

}  // namespace cprof::sampler
