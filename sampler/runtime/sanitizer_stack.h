#pragma once
// The runtime starts its own threads (writer, experiment controller) with libc's
// pthread_create, past any interposer, sanitizers' included. AddressSanitizer then does
// not know these threads: a stack they get from a thread that died may still carry that
// thread's stack poison, and their first frames are reported as overflows (seen in a
// forked child of an OpenMP program). Such a thread clears its stack's shadow first.
// No-op without AddressSanitizer.

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#endif

namespace cprof::sampler {

inline void unpoison_own_stack() {
#if defined(__SANITIZE_ADDRESS__)
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* low = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &low, &size) == 0) __asan_unpoison_memory_region(low, size);
  pthread_attr_destroy(&attr);
#endif
}

}  // namespace cprof::sampler
