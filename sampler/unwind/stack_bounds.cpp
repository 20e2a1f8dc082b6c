#include "sampler/unwind/stack_bounds.h"

#include <pthread.h>

namespace cprof::sampler {

StackBounds current_thread_stack_bounds() noexcept {
  pthread_attr_t attr;
  // For the initial thread glibc reads /proc/self/maps to find the [stack] mapping and
  // limits the size by RLIMIT_STACK and the previous mapping, which is the range the
  // stack can grow into; for other threads it returns the allocated stack.
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return {};
  void* addr = nullptr;
  size_t size = 0;
  int rc = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0 || addr == nullptr || size == 0) return {};
  auto lo = reinterpret_cast<uint64_t>(addr);
  return {lo, lo + size};
}

}  // namespace cprof::sampler
