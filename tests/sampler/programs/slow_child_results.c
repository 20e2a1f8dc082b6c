/* Preloaded, it holds up a forked child's results file by SLOW_CHILD_RESULTS_MS (1000 by
   default): every creation of a ".cprof" file but a process image's first one sleeps that
   long first. A forked child inherits the count, so its file (made in the sampler's fork
   handler) comes late, as it does on a loaded machine that does not schedule the child for
   a while; an exec'd image starts the count again. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int results_files_created;

static void hold_up_a_child(const char* path, int flags) {
  const size_t n = strlen(path);
  if ((flags & O_CREAT) == 0 || n < 6 || strcmp(path + n - 6, ".cprof") != 0) return;
  if (results_files_created++ == 0) return;
  const char* ms = getenv("SLOW_CHILD_RESULTS_MS");
  const long wait_ms = ms != NULL ? atol(ms) : 1000;
  struct timespec t = {wait_ms / 1000, (wait_ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

typedef int (*open_function)(const char*, int, ...);
static open_function next_open;

/* Looked up at the first call (the sampler's constructor may run before this library's)
   and before main in any case: not first in a fork handler, where the loader's lock may
   be held. */
__attribute__((constructor)) static void find_next(void) {
  if (next_open == NULL) next_open = (open_function)dlsym(RTLD_NEXT, "open");
}

int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  find_next();
  hold_up_a_child(path, flags);
  return next_open(path, flags, mode);
}

/* On 64-bit Linux open64 is open: the same call, the same next definition. */
int open64(const char* path, int flags, ...) __attribute__((alias("open")));
