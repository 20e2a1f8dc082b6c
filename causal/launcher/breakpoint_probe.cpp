#include "causal/launcher/breakpoint_probe.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace cprof::causal {
namespace {

__attribute__((noinline)) int probe_target(int x) {
  __asm__ volatile("" ::: "memory");  // a call that is really made
  return x + 1;
}

}  // namespace

std::string hardware_breakpoints_do_not_count() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.size = sizeof attr;
  attr.bp_type = HW_BREAKPOINT_X;
  attr.bp_addr = reinterpret_cast<uintptr_t>(&probe_target);
  attr.bp_len = sizeof(long);
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int fd =
      static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) {
    return std::string("a hardware breakpoint cannot be set here (perf_event_open: ") +
           std::strerror(errno) + ")";
  }
  constexpr int kCalls = 4;
  volatile int sink = 0;
  for (int i = 0; i < kCalls; ++i) sink = sink + probe_target(i);
  uint64_t count = 0;
  const bool read_ok = ::read(fd, &count, sizeof count) == static_cast<ssize_t>(sizeof count);
  ::close(fd);
  if (read_ok && count >= kCalls) return "";
  return "hardware breakpoints count nothing on this machine (a probe on a function of "
         "causal-run counted " +
         std::to_string(count) + " of " + std::to_string(kCalls) +
         " calls: a VM that does not pass the debug registers through?)";
}

}  // namespace cprof::causal
