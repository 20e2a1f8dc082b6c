#include "causal/launcher/breakpoint_probe.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace cprof::causal {
namespace {

__attribute__((noinline)) int probe_target(int x) {
  __asm__ volatile("" ::: "memory");  // a call that is really made
  return x + 1;
}

}  // namespace

VisitCounterProbe probe_visit_counter(VisitCounter kind) {
  const auto address = reinterpret_cast<uintptr_t>(&probe_target);
  const char* what = kind == VisitCounter::uprobe ? "a uprobe" : "a hardware breakpoint";
  const auto place = code_place(address);
  if (!place)
    return {std::string(what) + " cannot be set here (the probe's code is in no loaded file)"};
  const int fd = open_visit_counter(kind, *place, 0);
  if (fd < 0) {
    std::string why =
        std::string(what) + " cannot be set here (perf_event_open: " + std::strerror(errno) + ")";
    if (kind == VisitCounter::uprobe && (errno == EACCES || errno == EPERM)) {
      why += "; uprobes need root or CAP_PERFMON";
    }
    return {why};
  }
  // Enough calls to time one (a few microseconds each), few enough to cost nothing.
  constexpr int kCalls = 64;
  volatile int sink = probe_target(0);  // the first visit also sets the kernel's state up
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) sink = sink + probe_target(i);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  uint64_t count = 0;
  const bool read_ok = ::read(fd, &count, sizeof count) == static_cast<ssize_t>(sizeof count);
  ::close(fd);
  if (read_ok && count >= kCalls + 1) {
    return {"", static_cast<double>(std::chrono::nanoseconds(elapsed).count()) / kCalls};
  }
  if (kind == VisitCounter::uprobe) {
    return {"uprobes count nothing on this machine (a probe on a function of causal-run counted " +
            std::to_string(count) + " of " + std::to_string(kCalls + 1) + " calls)"};
  }
  return {
      "hardware breakpoints count nothing on this machine (a probe on a function of "
      "causal-run counted " +
      std::to_string(count) + " of " + std::to_string(kCalls + 1) +
      " calls: a VM that does not pass the debug registers through?)"};
}

VisitCounterChoice choose_visit_counter() {
  VisitCounterChoice choice;
  for (const VisitCounter kind : {VisitCounter::breakpoint, VisitCounter::uprobe}) {
    const VisitCounterProbe probe = probe_visit_counter(kind);
    (kind == VisitCounter::breakpoint ? choice.why_not_breakpoint : choice.why_not_uprobe) =
        probe.why_not;
    if (probe.why_not.empty()) {
      choice.kind = kind;
      choice.ns_per_visit = probe.ns_per_visit;
      break;
    }
  }
  return choice;
}

}  // namespace cprof::causal
