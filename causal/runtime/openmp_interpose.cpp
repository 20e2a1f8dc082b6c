// libgomp's public entry points that wait, interposed (openmp_waits.h; docs/causal.md
// "Waits that spin"). Each forwards to the next definition with the same arguments and
// result, and marks the wait around it on the calling thread:
//   GOMP_parallel and the combined parallel-loop/sections forms: the caller (the team's
//     master) pays before it forks the team (it wakes the workers), and runs the region's
//     function through region_entry; after the function, every thread waits (the closing
//     barrier, then the workers at the pool's dock) until the master returns from the
//     call or a worker enters its next region: released by another thread, credited;
//   barriers (GOMP_barrier, the ends of worksharing loops and sections, single copy,
//     taskwait, taskgroup end) and critical sections (GOMP_critical_*, GOMP_atomic_*):
//     wait around the call; leaving a critical section wakes another (pay first).
// Threads the causal runtime does not know pass straight through.

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "causal/runtime/calling_thread.h"
#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/openmp_waits.h"

namespace cprof::causal {
namespace {

using RegionFn = void (*)(void*);

std::atomic<uint64_t> g_code_start{0};
std::atomic<uint64_t> g_code_end{0};
std::atomic<uint64_t> g_waits{0};
std::atomic<uint64_t> g_samples{0};

// The executable segment of the loaded object that holds `address`.
void publish_code_of(const void* address) {
  struct Find {
    uintptr_t address;
    uintptr_t start = 0;
    uintptr_t end = 0;
  } find{reinterpret_cast<uintptr_t>(address)};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* arg) {
        auto* f = static_cast<Find*>(arg);
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
          const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          if (f->address >= start && f->address < start + ph.p_memsz) {
            f->start = start;
            f->end = start + ph.p_memsz;
            return 1;
          }
        }
        return 0;
      },
      &find);
  if (find.start == 0) return;
  g_code_end.store(find.end, std::memory_order_relaxed);
  g_code_start.store(find.start, std::memory_order_release);
}

// The next definition of `name` after this library: RTLD_NEXT, or, for a libgomp that a
// dlopen'ed library brought in with RTLD_LOCAL (not in the global scope RTLD_NEXT
// searches), the first other loaded object that defines it.
void* find_next(const char* name) {
  if (void* fn = dlsym(RTLD_NEXT, name)) return fn;
  struct Search {
    const char* name;
    const char* self;
    void* fn = nullptr;
  } search{name, nullptr};
  Dl_info self{};
  if (dladdr(reinterpret_cast<const void*>(&find_next), &self) != 0) search.self = self.dli_fname;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* arg) {
        auto* s = static_cast<Search*>(arg);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
        if (s->self != nullptr && std::strcmp(info->dlpi_name, s->self) == 0) return 0;
        void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (handle == nullptr) return 0;
        void* fn = dlsym(handle, s->name);
        dlclose(handle);
        // dlsym on a handle searches the object's dependencies too: keep its own only.
        Dl_info where{};
        if (fn != nullptr && dladdr(fn, &where) != 0 &&
            std::strcmp(where.dli_fname, info->dlpi_name) == 0) {
          s->fn = fn;
          return 1;
        }
        return 0;
      },
      &search);
  if (search.fn == nullptr) {
    // Called, so defined somewhere; not finding it is a bug worth stopping for.
    std::fprintf(stderr, "causal-run: %s: the OpenMP runtime's definition was not found\n", name);
    std::abort();
  }
  return search.fn;
}

template <typename Fn>
Fn resolve(std::atomic<Fn>& slot, const char* name) {
  Fn fn = slot.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<Fn>(find_next(name));
    if (g_code_start.load(std::memory_order_acquire) == 0) {
      publish_code_of(reinterpret_cast<const void*>(fn));
    }
    slot.store(fn, std::memory_order_release);
  }
  return fn;
}

// The type is last: it has commas of its own.
#define CPROF_GOMP_REAL(name, ...) \
  std::atomic<__VA_ARGS__> g_real_##name{nullptr}; \
  auto real_##name() { return resolve(g_real_##name, #name); }

// CPROF_CAUSAL_OPENMP_WAITS=off: forward without marking waits (to compare).
bool marking_waits() {
  static const bool on = [] {
    const char* v = std::getenv("CPROF_CAUSAL_OPENMP_WAITS");
    return v == nullptr || std::strcmp(v, "off") != 0;
  }();
  return on;
}

// The calling thread, or nothing (a thread the runtime does not know, or marking off).
CallingThread self() { return marking_waits() ? CallingThread() : CallingThread{nullptr, nullptr}; }

void wait_begin(const CallingThread& c) {
  if (c && !DelayAccounting::in_runtime_wait(c.t->delay)) {
    g_waits.fetch_add(1, std::memory_order_relaxed);
  }
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.runtime_wait_begin(t); });
}

void wait_end(const CallingThread& c) {
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.runtime_wait_end(t); });
}

void wake_others(const CallingThread& c) {
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.before_wake_other(t); });
}

// Ends the calling thread's wait when the forwarded call returns.
struct EndsWait {
  const CallingThread& c;
  ~EndsWait() { wait_end(c); }
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
  const CallingThread c = self();
  // A worker comes from the pool's dock (or is new: no wait to end); the master came
  // straight from its GOMP_parallel call.
  if (c.t != region->master) wait_end(c);
  region->fn(region->data);
  wait_begin(c);
}

// GOMP_parallel and its combined forms: (fn, data, rest...). The master waits at the
// join until the call returns.
template <typename Result, typename... Rest>
Result fork_team(Result (*real)(RegionFn, void*, Rest...), RegionFn fn, void* data, Rest... rest) {
  const CallingThread c = self();
  if (!c) return real(fn, data, rest...);
  const Region region{fn, data, c.t};
  wake_others(c);
  const EndsWait join{c};
  return real(&region_entry, const_cast<Region*>(&region), rest...);
}

// A call that waits for other threads of the team.
template <typename Result, typename... Args>
Result waited(Result (*real)(Args...), Args... args) {
  const CallingThread c = self();
  wait_begin(c);
  const EndsWait end{c};
  return real(args...);
}

// A call that lets a waiting thread go (leaving a critical section).
template <typename... Args>
void releasing(void (*real)(Args...), Args... args) {
  wake_others(self());
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
#undef CPROF_GOMP_REAL

}  // namespace

CodeRange runtime_code() {
  const uint64_t start = g_code_start.load(std::memory_order_acquire);
  return CodeRange{start, start != 0 ? g_code_end.load(std::memory_order_relaxed) : 0};
}

void note_runtime_wait_sample() { g_samples.fetch_add(1, std::memory_order_relaxed); }

std::string runtime_wait_summary() {
  const uint64_t waits = g_waits.load();
  if (waits == 0) return "";
  char text[200];
  std::snprintf(text, sizeof text,
                "OpenMP waits seen: %llu (%llu samples spinning inside them not counted as "
                "CPU work)",
                static_cast<unsigned long long>(waits),
                static_cast<unsigned long long>(g_samples.load()));
  return text;
}

}  // namespace cprof::causal

// ---- the interposed entry points (exports.map) ----

namespace cc = cprof::causal;
#define CPROF_EXPORT extern "C" __attribute__((visibility("default")))

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
