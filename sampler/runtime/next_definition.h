#pragma once
// The next definition (RTLD_NEXT) of a function the runtime interposes, looked up once and
// cached: for the interposers that forward to libc (signal masks, descriptors, sigaction).
// After the first call for a name the lookup is an atomic load, safe in a signal handler;
// call it once outside one (at load) for functions a handler may reach first.

#include <dlfcn.h>

#include <atomic>

namespace cprof::sampler {

template <typename Fn>
Fn next_definition(std::atomic<Fn>& cache, const char* name) {
  Fn fn = cache.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
    cache.store(fn, std::memory_order_release);
  }
  return fn;
}

}  // namespace cprof::sampler
