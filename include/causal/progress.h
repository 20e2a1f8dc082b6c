/* The causal profiler's progress points, for C and C++ programs.
 *
 *   CAUSAL_PROGRESS;                  a throughput point named after its FILE:LINE
 *   CAUSAL_PROGRESS_NAMED("name");    a named throughput point ("one more request done")
 *   CAUSAL_BEGIN("name"); ...         a latency point: an arrival ...
 *   CAUSAL_END("name");               ... and its departure; causal-run predicts the
 *                                     latency, and causal-report shows the calls' durations
 *                                     (count, mean, min, max, stddev) as a timed region;
 *                                     a BEGIN and END on the same thread pair up into one
 *                                     call (a duration, a slice on the chrome timeline);
 *                                     across threads they still count for the latency
 *
 * A program built with this header runs unchanged without the profiler: each point looks
 * the profiler's runtime up once (dlsym(RTLD_DEFAULT, "cprof_progress_api_v1")), and with
 * no runtime loaded a point costs a load and a branch. Nothing to link. Thread-safe and
 * async-signal-safe once a point has been looked up (its first visit may allocate).
 *
 * causal-run also counts Coz's points (coz.h: COZ_PROGRESS, COZ_BEGIN, COZ_END)
 * unchanged, and points without any source change: causal-run --progress FILE:LINE. */
#ifndef CAUSAL_PROGRESS_H
#define CAUSAL_PROGRESS_H

#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cprof_point cprof_point;

/* The runtime's table of entry points: an ABI, only ever extended at the end. */
typedef struct cprof_progress_api {
  unsigned version; /* 1 */
  /* kind: 0 throughput, 1 latency. The point named `name`, created on first use. */
  cprof_point* (*point)(int kind, const char* name, const char* file, unsigned line);
  void (*visit)(cprof_point* point);
  void (*begin)(cprof_point* point);
  void (*end)(cprof_point* point);
} cprof_progress_api;

#define CPROF_PROGRESS_API_SYMBOL "cprof_progress_api_v1"

/* Atomics that C and C++ share (GCC's and Clang's builtins; <stdatomic.h> and <atomic>
 * do not mix in one header). The flag is published with release and read with acquire,
 * so a thread that sees it set also sees the pointer stored before it; the pointer
 * itself is read and written atomically (relaxed) because two first calls may race. */
#define CPROF_LOAD_ACQUIRE_(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define CPROF_LOAD_RELAXED_(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define CPROF_STORE_RELEASE_(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define CPROF_STORE_RELAXED_(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* The runtime's table, or null when the program runs without the profiler. Looked up
 * once per translation unit; a race between two first calls only looks it up twice (both
 * store the same pointer). */
static inline const cprof_progress_api* cprof_progress_api_get(void) {
  static const cprof_progress_api* api;
  static int looked_up;
  if (!CPROF_LOAD_ACQUIRE_(&looked_up)) {
    const cprof_progress_api* found =
        (const cprof_progress_api*)dlsym(RTLD_DEFAULT, CPROF_PROGRESS_API_SYMBOL);
    CPROF_STORE_RELAXED_(&api, found);
    CPROF_STORE_RELEASE_(&looked_up, 1);
  }
  return CPROF_LOAD_RELAXED_(&api);
}

#ifdef __cplusplus
}
#endif

#define CPROF_STRINGIFY_(x) #x
#define CPROF_STRINGIFY(x) CPROF_STRINGIFY_(x)

/* One point per call site: looked up on its first visit, then used directly. Two threads
 * that race to the first visit both ask the runtime, which gives both the same point (by
 * name); the flag is published after the pointer (release/acquire, as above). */
#define CPROF_POINT_(kind, name, op)                                            \
  do {                                                                          \
    const cprof_progress_api* cprof_api_ = cprof_progress_api_get();            \
    if (cprof_api_) {                                                           \
      static cprof_point* cprof_point_;                                         \
      static int cprof_init_;                                                   \
      cprof_point* cprof_p_;                                                    \
      if (CPROF_LOAD_ACQUIRE_(&cprof_init_)) {                                  \
        cprof_p_ = CPROF_LOAD_RELAXED_(&cprof_point_);                          \
      } else {                                                                  \
        cprof_p_ = cprof_api_->point((kind), (name), __FILE__, __LINE__);       \
        CPROF_STORE_RELAXED_(&cprof_point_, cprof_p_);                          \
        CPROF_STORE_RELEASE_(&cprof_init_, 1);                                  \
      }                                                                         \
      if (cprof_p_) cprof_api_->op(cprof_p_);                                   \
    }                                                                           \
  } while (0)

#define CAUSAL_PROGRESS CPROF_POINT_(0, __FILE__ ":" CPROF_STRINGIFY(__LINE__), visit)
#define CAUSAL_PROGRESS_NAMED(name) CPROF_POINT_(0, (name), visit)
#define CAUSAL_BEGIN(name) CPROF_POINT_(1, (name), begin)
#define CAUSAL_END(name) CPROF_POINT_(1, (name), end)

#endif /* CAUSAL_PROGRESS_H */
