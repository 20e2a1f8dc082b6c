// libc's syscall(), interposed by the sampling runtime for one reason: a program that
// execs through it (syscall(SYS_execve, ...)) would pass every exec hook, and its
// thread's sampling event, counting through the kernel's work of exec, would signal the
// new image, which dies of it. Every other number is forwarded as it came. (The causal
// runtime has its own syscall(), blocking_interpose.cpp, which does the same first.)

#include <cstdarg>

#include "sampler/runtime/interpose.h"
#include "sampler/runtime/real.h"

CPROF_EXPORT long syscall(long number, ...) {
  // x86-64 passes at most six arguments in registers; reading all six is what libc's
  // own syscall() does.
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& x : a) x = va_arg(ap, long);
  va_end(ap);
  long result = 0;
  if (cprof::sampler::exec_system_call(number, a, result)) return result;
  return cprof::real::syscall()(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
