#include "gpu/common/tool_thread.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

namespace cprof::gpu {

void begin_tool_thread(const char* name) {
  using MaskFunction = int (*)(int, const sigset_t*, sigset_t*);
  // The tools are loaded after the preloaded runtimes: the next definition is libc's.
  auto real = reinterpret_cast<MaskFunction>(dlsym(RTLD_NEXT, "pthread_sigmask"));
  if (real == nullptr) real = &pthread_sigmask;
  sigset_t all;
  sigfillset(&all);
  real(SIG_BLOCK, &all, nullptr);
  pthread_setname_np(pthread_self(), name);
}

}  // namespace cprof::gpu
