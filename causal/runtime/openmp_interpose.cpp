// libgomp's public entry points that wait, interposed (openmp_waits.h; docs/causal.md
// "Waits that spin"). Each forwards to the next definition with the same arguments and
// result, and marks the wait around it on the calling thread:
//   GOMP_parallel and the combined parallel-loop/sections forms: the caller (the team's
//     master) pays before it forks the team (it wakes the workers), and runs the region's
//     function through region_entry; after the function, every thread waits (the closing
//     barrier, then the workers at the pool's dock) until the master returns from the
//     call or a worker enters its next region: released by another thread, credited;
//   barriers (GOMP_barrier, the ends of worksharing loops and sections, single copy,
//     taskwait, taskgroup end), critical sections (GOMP_critical_*, GOMP_atomic_*),
//     ordered sections (GOMP_ordered_start/_end) and libgomp's omp locks (omp_set_lock,
//     omp_set_nest_lock and their unsets): wait around the call; leaving a critical or
//     ordered section or a lock wakes another (pay first). The omp lock functions are
//     libomp's too, whose waits OMPT reports (ompt_tool.cpp): there they only forward.
// Threads the causal runtime does not know pass straight through.

#include <dlfcn.h>

#include <atomic>
#include <cstring>

#include "causal/runtime/openmp_waits.h"
#include "sampler/runtime/real.h"

namespace cprof::causal {
namespace {

using RegionFn = void (*)(void*);

// The type is last: it has commas of its own.
#define CPROF_GOMP_REAL(name, ...) \
  std::atomic<__VA_ARGS__> g_real_##name{nullptr}; \
  auto real_##name() { return resolve_next(g_real_##name, #name); }

// Ends the calling thread's wait when the forwarded call returns.
struct EndsWait {
  const CallingThread& c;
  ~EndsWait() { openmp_wait_end(c); }
};

// A parallel region's function and data, with the thread that forked the team. Lives in
// the master's frame of the GOMP_parallel call, which returns only after every thread of
// the team has left the function.
struct Region {
  RegionFn fn;
  void* data;
  const CausalThread* master;
};

void region_entry(void* arg) {
  const auto* region = static_cast<const Region*>(arg);
  const CallingThread c = openmp_thread();
  // A worker comes from the pool's dock (or is new: no wait to end); the master came
  // straight from its GOMP_parallel call.
  if (c.t != region->master) openmp_wait_end(c);
  region->fn(region->data);
  openmp_wait_begin(c);
}

// GOMP_parallel and its combined forms: (fn, data, rest...). The master waits at the
// join until the call returns.
template <typename Result, typename... Rest>
Result fork_team(Result (*real)(RegionFn, void*, Rest...), RegionFn fn, void* data, Rest... rest) {
  const CallingThread c = openmp_thread();
  if (!c) return real(fn, data, rest...);
  const Region region{fn, data, c.t};
  openmp_wake_others(c);
  const EndsWait join{c};
  return real(&region_entry, const_cast<Region*>(&region), rest...);
}

// A call that waits for other threads of the team.
template <typename Result, typename... Args>
Result waited(Result (*real)(Args...), Args... args) {
  const CallingThread c = openmp_thread();
  openmp_wait_begin(c);
  const EndsWait end{c};
  return real(args...);
}

// A call that lets a waiting thread go (leaving a critical section).
template <typename... Args>
void releasing(void (*real)(Args...), Args... args) {
  openmp_wake_others(openmp_thread());
  real(args...);
}

using Loop = void (*)(RegionFn, void*, unsigned, long, long, long, long, unsigned);
using LoopRuntime = void (*)(RegionFn, void*, unsigned, long, long, long, unsigned);
CPROF_GOMP_REAL(GOMP_parallel, void (*)(RegionFn, void*, unsigned, unsigned))
CPROF_GOMP_REAL(GOMP_parallel_reductions, unsigned (*)(RegionFn, void*, unsigned, unsigned))
CPROF_GOMP_REAL(GOMP_parallel_sections, void (*)(RegionFn, void*, unsigned, unsigned, unsigned))
CPROF_GOMP_REAL(GOMP_parallel_loop_static, Loop)
CPROF_GOMP_REAL(GOMP_parallel_loop_dynamic, Loop)
CPROF_GOMP_REAL(GOMP_parallel_loop_guided, Loop)
CPROF_GOMP_REAL(GOMP_parallel_loop_nonmonotonic_dynamic, Loop)
CPROF_GOMP_REAL(GOMP_parallel_loop_nonmonotonic_guided, Loop)
CPROF_GOMP_REAL(GOMP_parallel_loop_runtime, LoopRuntime)
CPROF_GOMP_REAL(GOMP_parallel_loop_nonmonotonic_runtime, LoopRuntime)
CPROF_GOMP_REAL(GOMP_parallel_loop_maybe_nonmonotonic_runtime, LoopRuntime)
CPROF_GOMP_REAL(GOMP_barrier, void (*)())
CPROF_GOMP_REAL(GOMP_barrier_cancel, bool (*)())
CPROF_GOMP_REAL(GOMP_loop_end, void (*)())
CPROF_GOMP_REAL(GOMP_loop_end_cancel, bool (*)())
CPROF_GOMP_REAL(GOMP_sections_end, void (*)())
CPROF_GOMP_REAL(GOMP_sections_end_cancel, bool (*)())
CPROF_GOMP_REAL(GOMP_single_copy_start, void* (*)())
CPROF_GOMP_REAL(GOMP_single_copy_end, void (*)(void*))
CPROF_GOMP_REAL(GOMP_taskwait, void (*)())
CPROF_GOMP_REAL(GOMP_taskgroup_end, void (*)())
CPROF_GOMP_REAL(GOMP_critical_start, void (*)())
CPROF_GOMP_REAL(GOMP_critical_end, void (*)())
CPROF_GOMP_REAL(GOMP_critical_name_start, void (*)(void**))
CPROF_GOMP_REAL(GOMP_critical_name_end, void (*)(void**))
CPROF_GOMP_REAL(GOMP_atomic_start, void (*)())
CPROF_GOMP_REAL(GOMP_atomic_end, void (*)())
CPROF_GOMP_REAL(GOMP_ordered_start, void (*)())
CPROF_GOMP_REAL(GOMP_ordered_end, void (*)())
CPROF_GOMP_REAL(omp_set_lock, void (*)(void*))
CPROF_GOMP_REAL(omp_unset_lock, void (*)(void*))
CPROF_GOMP_REAL(omp_set_nest_lock, void (*)(void*))
CPROF_GOMP_REAL(omp_unset_nest_lock, void (*)(void*))
#undef CPROF_GOMP_REAL

// Whether the omp lock functions found are libgomp's (1) or another runtime's (2, libomp:
// OMPT marks those waits, so marking them here too would open each wait twice).
std::atomic<int> g_locks_of_libgomp{0};

bool locks_of_libgomp(const void* real) {
  int known = g_locks_of_libgomp.load(std::memory_order_relaxed);
  if (known == 0) {
    Dl_info where{};
    const bool gomp = dladdr(real, &where) != 0 && where.dli_fname != nullptr &&
                      std::strstr(where.dli_fname, "libgomp") != nullptr;
    known = gomp ? 1 : 2;
    g_locks_of_libgomp.store(known, std::memory_order_relaxed);
  }
  return known == 1;
}

// An omp lock call: a wait (or a release) under libgomp, a plain call elsewhere.
void lock_waited(void (*real)(void*), void* lock) {
  if (locks_of_libgomp(reinterpret_cast<const void*>(real))) {
    waited(real, lock);
  } else {
    real(lock);
  }
}
void lock_releasing(void (*real)(void*), void* lock) {
  if (locks_of_libgomp(reinterpret_cast<const void*>(real))) {
    releasing(real, lock);
  } else {
    real(lock);
  }
}

}  // namespace

}  // namespace cprof::causal

// ---- the interposed entry points (exports.map) ----

namespace cc = cprof::causal;

CPROF_EXPORT void GOMP_parallel(cc::RegionFn fn, void* data, unsigned threads, unsigned flags) {
  cc::fork_team(cc::real_GOMP_parallel(), fn, data, threads, flags);
}
CPROF_EXPORT unsigned GOMP_parallel_reductions(cc::RegionFn fn, void* data, unsigned threads,
                                               unsigned flags) {
  return cc::fork_team(cc::real_GOMP_parallel_reductions(), fn, data, threads, flags);
}
CPROF_EXPORT void GOMP_parallel_sections(cc::RegionFn fn, void* data, unsigned threads,
                                         unsigned count, unsigned flags) {
  cc::fork_team(cc::real_GOMP_parallel_sections(), fn, data, threads, count, flags);
}

#define CPROF_GOMP_LOOP(name)                                                                \
  CPROF_EXPORT void name(cc::RegionFn fn, void* data, unsigned threads, long start, long end, \
                         long incr, long chunk, unsigned flags) {                            \
    cc::fork_team(cc::real_##name(), fn, data, threads, start, end, incr, chunk, flags);     \
  }
CPROF_GOMP_LOOP(GOMP_parallel_loop_static)
CPROF_GOMP_LOOP(GOMP_parallel_loop_dynamic)
CPROF_GOMP_LOOP(GOMP_parallel_loop_guided)
CPROF_GOMP_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
CPROF_GOMP_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
#undef CPROF_GOMP_LOOP

#define CPROF_GOMP_LOOP_RUNTIME(name)                                                         \
  CPROF_EXPORT void name(cc::RegionFn fn, void* data, unsigned threads, long start, long end, \
                         long incr, unsigned flags) {                                         \
    cc::fork_team(cc::real_##name(), fn, data, threads, start, end, incr, flags);             \
  }
CPROF_GOMP_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
CPROF_GOMP_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
CPROF_GOMP_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
#undef CPROF_GOMP_LOOP_RUNTIME

CPROF_EXPORT void GOMP_barrier() { cc::waited(cc::real_GOMP_barrier()); }
CPROF_EXPORT bool GOMP_barrier_cancel() { return cc::waited(cc::real_GOMP_barrier_cancel()); }
CPROF_EXPORT void GOMP_loop_end() { cc::waited(cc::real_GOMP_loop_end()); }
CPROF_EXPORT bool GOMP_loop_end_cancel() { return cc::waited(cc::real_GOMP_loop_end_cancel()); }
CPROF_EXPORT void GOMP_sections_end() { cc::waited(cc::real_GOMP_sections_end()); }
CPROF_EXPORT bool GOMP_sections_end_cancel() {
  return cc::waited(cc::real_GOMP_sections_end_cancel());
}
CPROF_EXPORT void* GOMP_single_copy_start() { return cc::waited(cc::real_GOMP_single_copy_start()); }
CPROF_EXPORT void GOMP_single_copy_end(void* data) {
  cc::waited(cc::real_GOMP_single_copy_end(), data);
}
CPROF_EXPORT void GOMP_taskwait() { cc::waited(cc::real_GOMP_taskwait()); }
CPROF_EXPORT void GOMP_taskgroup_end() { cc::waited(cc::real_GOMP_taskgroup_end()); }
CPROF_EXPORT void GOMP_critical_start() { cc::waited(cc::real_GOMP_critical_start()); }
CPROF_EXPORT void GOMP_critical_end() { cc::releasing(cc::real_GOMP_critical_end()); }
CPROF_EXPORT void GOMP_critical_name_start(void** lock) {
  cc::waited(cc::real_GOMP_critical_name_start(), lock);
}
CPROF_EXPORT void GOMP_critical_name_end(void** lock) {
  cc::releasing(cc::real_GOMP_critical_name_end(), lock);
}
CPROF_EXPORT void GOMP_atomic_start() { cc::waited(cc::real_GOMP_atomic_start()); }
CPROF_EXPORT void GOMP_atomic_end() { cc::releasing(cc::real_GOMP_atomic_end()); }
CPROF_EXPORT void GOMP_ordered_start() { cc::waited(cc::real_GOMP_ordered_start()); }
CPROF_EXPORT void GOMP_ordered_end() { cc::releasing(cc::real_GOMP_ordered_end()); }
CPROF_EXPORT void omp_set_lock(void* lock) { cc::lock_waited(cc::real_omp_set_lock(), lock); }
CPROF_EXPORT void omp_unset_lock(void* lock) {
  cc::lock_releasing(cc::real_omp_unset_lock(), lock);
}
CPROF_EXPORT void omp_set_nest_lock(void* lock) {
  cc::lock_waited(cc::real_omp_set_nest_lock(), lock);
}
CPROF_EXPORT void omp_unset_nest_lock(void* lock) {
  cc::lock_releasing(cc::real_omp_unset_nest_lock(), lock);
}
