#pragma once
// The runtime starts its own threads (writer, experiment controller) with libc's
// pthread_create, past any interposer, sanitizers' included. AddressSanitizer then does
// not know these threads: a stack they get from a thread that died may still carry that
// thread's stack poison, and their first frames are reported as overflows (seen in a
// forked child of an OpenMP program). Such a thread clears its stack's shadow first.
// No-op without AddressSanitizer.

#include <signal.h>
#include <ucontext.h>

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

// The kernel writes a signal's siginfo and context below the interrupted stack pointer,
// where the shadow may still carry poison that no frame cleared: a vfork child shares its
// parent's stack and shadow, and a frame of the child's that never returned (it called
// execve) leaves its redzones poisoned until the parent's vfork interceptor clears them,
// just after the parent resumes. A sample that lands in between was reported as a
// stack-buffer-overflow reading info->si_code. The handler clears what the kernel wrote.
inline void unpoison_signal_frame([[maybe_unused]] const siginfo_t* info,
                                  [[maybe_unused]] const void* ucontext) {
#if defined(__SANITIZE_ADDRESS__)
  if (info != nullptr) __asan_unpoison_memory_region(info, sizeof *info);
  if (ucontext != nullptr) __asan_unpoison_memory_region(ucontext, sizeof(ucontext_t));
#endif
}

}  // namespace cprof::sampler
