#pragma once
// One thread of another process, sampled from outside (sample-run --pid): a perf_event
// on the thread whose samples carry the user registers and a copy of the top of the user
// stack, read from a ring buffer this process maps. Nothing runs inside the target: no
// signal, no descriptor of its, no code. docs/sampler.md ("Attaching to a running
// process") says why this mechanism and what it costs.
//
// The same event reports, as side records, the threads and processes the thread creates
// (PERF_RECORD_FORK), its end (PERF_RECORD_EXIT), an exec or a new name
// (PERF_RECORD_COMM) and the code it maps (PERF_RECORD_MMAP2), so the session follows
// threads created while attached without reading /proc in a loop.

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sampler/events/counter_group.h"

namespace cprof::sampler {

// The registers a sample carries, in perf's order for x86-64 (PERF_REG_X86_*): the ones
// the DWARF unwinder can need.
enum AttachRegister : int {
  kRegAx = 0,
  kRegBx,
  kRegCx,
  kRegDx,
  kRegSi,
  kRegDi,
  kRegBp,
  kRegSp,
  kRegIp,
  kRegR8,
  kRegR9,
  kRegR10,
  kRegR11,
  kRegR12,
  kRegR13,
  kRegR14,
  kRegR15,
  kRegCount
};

// One sample, pointing into the ring's copy (valid only during the callback).
struct ThreadSample {
  pid_t pid = 0;
  pid_t tid = 0;
  uint64_t time_ns = 0;    // CLOCK_MONOTONIC
  uint64_t period = 0;     // nanoseconds of the clock the event counts
  bool user_regs = false;  // false: the thread was in the kernel with no user context
  uint64_t regs[kRegCount] = {};
  uint64_t stack_start = 0;        // the user sp at the sample: stack[0] is there
  std::span<const uint8_t> stack;  // the copy, as far as the kernel could take it
  // Taken as the thread left its CPU (wall mode: the context-switch event, whose period
  // is 1; the task-clock's is never below 10 us), not on CPU time.
  bool switch_out = false;
  // Counters (-e) read with the sample: their totals since they were opened, by the
  // event's position in ThreadEventSettings::counters; 0 for one that could not be opened.
  uint64_t counters[kMaxCounters] = {};
};

// What else the event said, in the ring's order with the samples.
struct ThreadSideRecord {
  enum class Kind { fork, exit, comm, exec, mmap, lost, switch_in };
  Kind kind = Kind::fork;
  pid_t pid = 0;  // fork/exit: the new (ending) task's process; comm/mmap: the task's
  pid_t tid = 0;
  pid_t ppid = 0;  // fork: the parent's process
  uint64_t time_ns = 0;
  uint64_t lost = 0;  // lost: records the ring had no room for
  std::string text;   // comm: the name; mmap: the file
};

struct ThreadEventSettings {
  uint64_t period_ns = 2'000'000;
  uint32_t stack_bytes = 16384;  // copied per sample (perf's --call-graph dwarf: 8192)
  uint32_t ring_pages = 64;      // data pages, a power of two
  // Also a sample each time the thread leaves its CPU, into the same ring, and a record
  // each time it gets one back (PERF_RECORD_SWITCH): its off-CPU time, for --clock wall.
  bool wall = false;
  // Counted with the task-clock in one group, read at every sample (PERF_SAMPLE_READ);
  // a null entry is an event that is not counted here (keeps its place).
  std::vector<const perf_event_attr*> counters;
};

// The user stack of a thread of `pid` blocked in a system call now, read without stopping
// it: its user sp and pc from /proc/PID/task/TID/syscall (the other registers are not
// known: 0), and up to `stack_bytes` of its stack through process_vm_readv, into `stack`.
// For a thread that was already waiting when sampling began (wall mode), which no
// switch-out sample will show until it runs again. False if it is running or unreadable.
bool read_blocked_thread(pid_t pid, pid_t tid, uint32_t stack_bytes, ThreadSample& s,
                         std::vector<uint8_t>& stack);

class ThreadEvent {
 public:
  ThreadEvent() = default;
  ~ThreadEvent();
  ThreadEvent(const ThreadEvent&) = delete;
  ThreadEvent& operator=(const ThreadEvent&) = delete;
  ThreadEvent(ThreadEvent&& other) noexcept;
  ThreadEvent& operator=(ThreadEvent&& other) noexcept;

  // Opens and enables the event on `tid`, with its ring. Returns "" or why not, in our
  // words (errno kept).
  std::string open(pid_t tid, const ThreadEventSettings& settings);
  // Why each counter of the settings could not be opened on this thread ("" if it was).
  const std::vector<std::string>& counter_errors() const { return counter_errors_; }
  bool is_open() const { return fd_ >= 0; }
  pid_t tid() const { return tid_; }
  int fd() const { return fd_; }

  // Hands every record in the ring to the callbacks, then frees it.
  void drain(const std::function<void(const ThreadSample&)>& on_sample,
             const std::function<void(const ThreadSideRecord&)>& on_side);
  // CPU time the thread ran while the event was enabled (the event's count), in ns.
  uint64_t cpu_time_ns() const;
  void close();

 private:
  int fd_ = -1;
  int switch_fd_ = -1;  // wall: the context-switch event, writing into fd_'s ring
  std::vector<int> counter_fds_;
  // For each of ThreadEventSettings::counters: its position in the group's read (1 + its
  // order among the members that opened), or -1.
  int counter_position_[kMaxCounters] = {};
  size_t counter_count_ = 0;
  pid_t tid_ = 0;
  void* ring_ = nullptr;
  size_t ring_size_ = 0;          // bytes mapped: one header page + data
  std::vector<uint8_t> scratch_;  // a record that wraps around the ring's end
  std::vector<std::string> counter_errors_;
};

}  // namespace cprof::sampler
