#include "causal/runtime/openmp_waits.h"

#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <sys/auxv.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "causal/runtime/loaded_text.h"
#include "sampler/unwind/loader_walk.h"

namespace cprof::causal {
namespace {

std::atomic<uint64_t> g_code_start{0};
std::atomic<uint64_t> g_code_end{0};
std::atomic<uint64_t> g_waits{0};
std::atomic<uint64_t> g_samples{0};
std::atomic<const char*> g_unmarked{nullptr};

CodeRange g_system[2];  // libc, the vDSO

// The executable segment of the loaded object that holds `address` (empty if none).
CodeRange code_of(const void* address) {
  if (address == nullptr) return {};
  const LoadedText text = loaded_text_containing(address);
  return CodeRange{text.start, text.end};
}

}  // namespace

CodeRange runtime_code() {
  const uint64_t start = g_code_start.load(std::memory_order_acquire);
  return CodeRange{start, start != 0 ? g_code_end.load(std::memory_order_relaxed) : 0};
}

void publish_runtime_code(const void* address) {
  if (g_code_start.load(std::memory_order_acquire) != 0) return;
  static std::once_flag once;  // two threads may resolve their first calls at once
  std::call_once(once, [address] {
    const CodeRange runtime = code_of(address);
    if (runtime.start == 0) return;
    // Written before the runtime's range is published (release), read after it (acquire).
    g_system[0] = code_of(reinterpret_cast<const void*>(&::sched_yield));
    g_system[1] = code_of(reinterpret_cast<const void*>(getauxval(AT_SYSINFO_EHDR)));
    g_code_end.store(runtime.end, std::memory_order_relaxed);
    g_code_start.store(runtime.start, std::memory_order_release);
  });
}

std::span<const CodeRange> system_code() {
  if (g_code_start.load(std::memory_order_acquire) == 0) return {};
  return g_system;
}

void* next_openmp_definition(const char* name) {
  if (void* fn = dlsym(RTLD_NEXT, name)) return fn;
  Dl_info self{};
  const char* self_name = nullptr;
  if (dladdr(reinterpret_cast<const void*>(&next_openmp_definition), &self) != 0) {
    self_name = self.dli_fname;
  }
  // The names first, then the lookups: a walk's callback loads nothing (loader_walk.h).
  std::vector<std::string> loaded;
  sampler::walk_loaded_objects(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &loaded);
  for (const std::string& object : loaded) {
    if (self_name != nullptr && object == self_name) continue;
    void* handle = dlopen(object.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void* fn = dlsym(handle, name);
    dlclose(handle);
    // dlsym on a handle searches the object's dependencies too: keep its own only.
    Dl_info where{};
    if (fn != nullptr && dladdr(fn, &where) != 0 && object == where.dli_fname) return fn;
  }
  // Called, so defined somewhere; not finding it is a bug worth stopping for.
  std::fprintf(stderr, "causal-run: %s: the OpenMP runtime's definition was not found\n", name);
  std::abort();
}

bool marking_openmp_waits() {
  static const bool on = [] {
    const char* v = std::getenv("CPROF_CAUSAL_OPENMP_WAITS");
    return v == nullptr || std::strcmp(v, "off") != 0;
  }();
  return on;
}

CallingThread openmp_thread() {
  return marking_openmp_waits() ? CallingThread() : CallingThread{nullptr, nullptr};
}

void openmp_wait_begin(const CallingThread& c) {
  if (c && !DelayAccounting::in_runtime_wait(c.t->delay)) {
    g_waits.fetch_add(1, std::memory_order_relaxed);
  }
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.runtime_wait_begin(t); });
}

void openmp_wait_end(const CallingThread& c) {
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.runtime_wait_end(t); });
}

void openmp_wake_others(const CallingThread& c) {
  c.apply([](DelayAccounting& d, ThreadDelay& t) { d.before_wake_other(t); });
}

void note_openmp_waits_unmarked(const char* why) {
  g_unmarked.store(why, std::memory_order_relaxed);
}

void note_runtime_wait_sample() { g_samples.fetch_add(1, std::memory_order_relaxed); }

std::string runtime_wait_summary() {
  const uint64_t waits = g_waits.load();
  const char* unmarked = g_unmarked.load();
  std::string text;
  if (waits != 0) {
    char seen[200];
    std::snprintf(seen, sizeof seen,
                  "OpenMP waits seen: %llu (%llu samples spinning inside them not counted as "
                  "CPU work)",
                  static_cast<unsigned long long>(waits),
                  static_cast<unsigned long long>(g_samples.load()));
    text = seen;
  }
  if (unmarked != nullptr) {
    text += text.empty() ? "" : "; ";
    text += std::string("OpenMP waits not marked: ") + unmarked +
            " (a thread spinning in them counts as running)";
  }
  return text;
}

}  // namespace cprof::causal
