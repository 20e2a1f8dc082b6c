// LLVM libomp's waits, marked through its tool interface, OMPT (openmp_waits.h;
// docs/causal.md "Waits that spin"). Clang's OpenMP code calls libomp's __kmpc_* entry
// points, some of them variadic, so instead of interposing them the runtime registers as
// the OMPT tool: libomp looks up ompt_start_tool in the process (this library exports
// it) when it initializes, and then calls back on the thread concerned:
//   parallel_begin             the encountering thread is about to fork a team (it wakes
//                              the workers): it pays first;
//   sync_region_wait           begin/end of every wait for the team (barriers, the
//                              implicit barrier at a region's end, which for a worker
//                              lasts until it is released into its next region,
//                              taskwait, taskgroup, reductions): a runtime wait;
//   mutex_acquire/_acquired    waiting for a critical section, lock, atomic or ordered
//                              section: a runtime wait; not inside omp_test_lock and
//                              omp_test_nest_lock (interposed here), which do not wait and
//                              whose failure has no "acquired" (libomp 14 reports their
//                              acquire as a plain lock's);
//   nest_lock (begin)          a nestable lock the thread already held: no wait after all;
//   mutex_released             leaving one (it may wake a waiter): pays first.
// OMPT allows one tool per runtime: a tool of the program's own (found after this library,
// or named in OMP_TOOL_LIBRARIES) keeps its place, and the end-of-run message says the
// waits were not marked.

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "causal/runtime/openmp_waits.h"
#include "sampler/runtime/real.h"

namespace cprof::causal {
namespace {

// The parts of the OMPT interface (OpenMP 5.1, chapter 4; <omp-tools.h>) used here.
namespace ompt {
union Data {
  uint64_t value;
  void* ptr;
};
using InterfaceFn = void (*)();
using Lookup = InterfaceFn (*)(const char* name);
using Initialize = int (*)(Lookup lookup, int initial_device, Data* tool_data);
using Finalize = void (*)(Data* tool_data);
struct StartToolResult {
  Initialize initialize;
  Finalize finalize;
  Data tool_data;
};
using StartTool = StartToolResult* (*)(unsigned omp_version, const char* runtime_version);
using SetCallback = int (*)(int event, InterfaceFn callback);

enum Event : int {
  kParallelBegin = 3,
  kSyncRegionWait = 16,
  kMutexReleased = 17,
  kMutexAcquire = 26,
  kMutexAcquired = 27,
  kNestLock = 28,
};
enum Endpoint : int { kScopeBegin = 1, kScopeEnd = 2 };
enum MutexKind : int { kTestLock = 2, kTestNestLock = 4 };
// ompt_set_callback's results: 0 error, 1 never (the runtime does not have the event).
constexpr int kSetNever = 1;
}  // namespace ompt

void on_parallel_begin(ompt::Data*, const void*, ompt::Data*, unsigned, int, const void*) {
  openmp_wake_others(openmp_thread());
}

void on_sync_region_wait(int, int endpoint, ompt::Data*, ompt::Data*, const void*) {
  if (endpoint == ompt::kScopeBegin) openmp_wait_begin(openmp_thread());
  if (endpoint == ompt::kScopeEnd) openmp_wait_end(openmp_thread());
}

// Set while omp_test_lock or omp_test_nest_lock runs on this thread: they return at
// once, and when they fail no "acquired" would close a wait opened at their "acquire".
__attribute__((tls_model("initial-exec"))) thread_local bool t_trying_lock = false;

bool waits(int mutex_kind) {
  return !t_trying_lock && mutex_kind != ompt::kTestLock && mutex_kind != ompt::kTestNestLock;
}

using TestLock = int (*)(void*);
std::atomic<TestLock> g_real_omp_test_lock{nullptr};
std::atomic<TestLock> g_real_omp_test_nest_lock{nullptr};

int trying(TestLock real, void* lock) {
  t_trying_lock = true;
  const int got = real(lock);
  t_trying_lock = false;
  return got;
}

void on_mutex_acquire(int kind, unsigned, unsigned, uint64_t, const void*) {
  if (waits(kind)) openmp_wait_begin(openmp_thread());
}

void on_mutex_acquired(int kind, uint64_t, const void*) {
  if (waits(kind)) openmp_wait_end(openmp_thread());
}

// A nestable lock taken again by its owner: "acquire" came, "acquired" does not.
void on_nest_lock(int endpoint, uint64_t, const void*) {
  if (endpoint == ompt::kScopeBegin) openmp_wait_end(openmp_thread());
}

void on_mutex_released(int, uint64_t, const void*) { openmp_wake_others(openmp_thread()); }

template <typename Fn>
bool set(ompt::SetCallback set_callback, ompt::Event event, Fn* fn) {
  return set_callback(event, reinterpret_cast<ompt::InterfaceFn>(fn)) > ompt::kSetNever;
}

int initialize(ompt::Lookup lookup, int, ompt::Data*) {
  const auto set_callback = reinterpret_cast<ompt::SetCallback>(lookup("ompt_set_callback"));
  if (set_callback == nullptr) {
    note_openmp_waits_unmarked("libomp has no ompt_set_callback");
    return 0;
  }
  // The lookup function is libomp's own: its text is where the waits spin.
  publish_runtime_code(reinterpret_cast<const void*>(lookup));
  // Waits are marked in pairs: without both ends of one the marks would stay open.
  const bool waits_ok = set(set_callback, ompt::kSyncRegionWait, &on_sync_region_wait);
  const bool forks_ok = set(set_callback, ompt::kParallelBegin, &on_parallel_begin);
  const bool locks_ok = set(set_callback, ompt::kMutexAcquire, &on_mutex_acquire) &&
                        set(set_callback, ompt::kMutexAcquired, &on_mutex_acquired) &&
                        set(set_callback, ompt::kNestLock, &on_nest_lock) &&
                        set(set_callback, ompt::kMutexReleased, &on_mutex_released);
  if (!locks_ok) {
    set_callback(ompt::kMutexAcquire, nullptr);
    set_callback(ompt::kMutexAcquired, nullptr);
    set_callback(ompt::kNestLock, nullptr);
    set_callback(ompt::kMutexReleased, nullptr);
  }
  if (!waits_ok || !forks_ok || !locks_ok) {
    note_openmp_waits_unmarked("libomp does not report every wait through OMPT");
  }
  return 1;
}

void finalize(ompt::Data*) {}

}  // namespace
}  // namespace cprof::causal

namespace cc = cprof::causal;

CPROF_EXPORT int omp_test_lock(void* lock) {
  return cc::trying(cc::resolve_next(cc::g_real_omp_test_lock, "omp_test_lock"), lock);
}
CPROF_EXPORT int omp_test_nest_lock(void* lock) {
  return cc::trying(cc::resolve_next(cc::g_real_omp_test_nest_lock, "omp_test_nest_lock"), lock);
}

CPROF_EXPORT cc::ompt::StartToolResult* ompt_start_tool(
    unsigned omp_version, const char* runtime_version) {
  // The program's own tool first: OMPT has one tool per runtime.
  const auto next = reinterpret_cast<cc::ompt::StartTool>(cprof::real::ompt_start_tool());
  if (next != nullptr) {
    if (cc::ompt::StartToolResult* theirs = next(omp_version, runtime_version)) {
      cc::note_openmp_waits_unmarked("the program has its own OMPT tool");
      return theirs;
    }
  }
  if (const char* tools = std::getenv("OMP_TOOL_LIBRARIES"); tools != nullptr && *tools != '\0') {
    cc::note_openmp_waits_unmarked("OMP_TOOL_LIBRARIES names another OMPT tool");
    return nullptr;  // libomp tries those next
  }
  if (!cc::marking_openmp_waits() || cc::CausalRuntime::instance() == nullptr) return nullptr;
  static cc::ompt::StartToolResult result{&cc::initialize, &cc::finalize, {0}};
  return &result;
}
