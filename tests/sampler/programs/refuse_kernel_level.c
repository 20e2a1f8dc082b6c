/* Preloaded, it makes perf_event_open refuse to count at kernel level (EACCES), as a
   kernel with perf_event_paranoid >= 2 does for a user without CAP_PERFMON; user-level
   counting still opens. A seccomp filter cannot look inside the attr, so this interposes
   glibc's syscall(), which is how the sampler calls perf_event_open. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_perf_event_open) {
    const struct perf_event_attr* attr = (const struct perf_event_attr*)a[0];
    if (attr != 0 && !attr->exclude_kernel) {
      errno = EACCES;
      return -1;
    }
  }
  static long (*next)(long, ...);
  if (next == 0) next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
