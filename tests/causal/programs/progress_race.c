/* include/causal/progress.h compiled as C, with threads racing to the first visit of
 * one call site (and of the runtime lookup). The program defines the runtime's table
 * itself (exported with -rdynamic, so the header's dlsym finds it): no profiler needed.
 * Built with ThreadSanitizer where the compiler has it; a data race report (or a lost
 * visit) fails the test. Prints the number of visits counted. */
#include <pthread.h>
#include <stdio.h>

#include "causal/progress.h"

enum { kThreads = 4, kVisits = 1000 };

struct cprof_point {
  unsigned long visits;
};

static struct cprof_point the_point;

static cprof_point* point(int kind, const char* name, const char* file, unsigned line) {
  (void)kind, (void)name, (void)file, (void)line;
  return &the_point;
}

static void visit(cprof_point* p) { __atomic_add_fetch(&p->visits, 1, __ATOMIC_RELAXED); }
static void ignore(cprof_point* p) { (void)p; }

const cprof_progress_api cprof_progress_api_v1 = {1, point, visit, ignore, ignore};

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < kVisits; ++i) CAUSAL_PROGRESS;
  return NULL;
}

int main(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, worker, NULL);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  const unsigned long visits = __atomic_load_n(&the_point.visits, __ATOMIC_RELAXED);
  printf("%lu visits\n", visits);
  return visits == (unsigned long)kThreads * kVisits ? 0 : 1;
}
