#pragma once
// Per-thread counting of the -e events: one perf_event group per thread, read with a
// single read() in the signal handler and turned into deltas since the thread's last
// sample.
//
// Signal-safety contract: open()/close() are not async-signal-safe (perf_event_open,
// close: called at thread registration and exit). read_deltas() is async-signal-safe
// (one read() syscall, no allocation) and not re-entrant per group.

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sampler/runtime/owned_fds.h"

namespace cprof::sampler {

inline constexpr size_t kMaxCounters = 8;

class CounterGroup {
 public:
  // attrs[i] == nullptr: event i is not counted (unresolved); its delta is always 0.
  // Returns, per event, "" if it opened or the reason it did not.
  std::vector<std::string> open(pid_t tid, const std::vector<const perf_event_attr*>& attrs);
  void close();
  size_t size() const { return count_; }
  // Writes size() deltas. Async-signal-safe.
  void read_deltas(uint64_t* deltas);
  // Cumulative values read at the last read_deltas (for "counted zero" checks).
  const uint64_t* totals() const { return last_; }

 private:
  // Descriptors with their ownership (sampler/runtime/owned_fds.h); fd -1 where none.
  OwnedFd leader_;
  OwnedFd fds_[kMaxCounters];
  int slot_of_event_[kMaxCounters] = {};  // position in the group read, or -1
  size_t count_ = 0;
  size_t opened_ = 0;
  uint64_t last_[kMaxCounters] = {};
};

// perf_event_open(2) has no glibc wrapper.
int perf_event_open_fd(const perf_event_attr& attr, pid_t tid, int cpu, int group_fd,
                       unsigned long flags);

// Explains an errno from perf_event_open for one event, in one line.
std::string perf_open_error(int err);

}  // namespace cprof::sampler
