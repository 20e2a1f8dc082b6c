#include "gpu/common/tool_settings.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace cprof::gpu {

size_t launch_stack_depth_from_environment() {
  const char* d = std::getenv("CPROF_DEPTH");
  const long v = d != nullptr ? std::strtol(d, nullptr, 10) : 0;
  return v > 0 ? static_cast<size_t>(v) : 128;
}

bool launch_stacks_from_environment() {
  const char* s = std::getenv("CPROF_GPU_STACKS");
  return s == nullptr || std::strcmp(s, "0") != 0;
}

int64_t current_tid() noexcept {
  thread_local const int64_t tid = static_cast<int64_t>(syscall(SYS_gettid));
  return tid;
}

}  // namespace cprof::gpu
