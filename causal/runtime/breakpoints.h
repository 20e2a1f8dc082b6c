#pragma once
// Progress points without a source change (--progress FILE:LINE): a counter patched into
// the program's code where the launcher found the line's first instructions movable
// (patched_counters.h), else a counter of the point's instruction per point and per
// thread (a hardware breakpoint or a uprobe, causal/visit_counter.h), in counting mode, so
// every visit is counted exactly and none costs a signal. The controller folds the counters into
// the points' visit counts (sync()) before it reads them at an experiment's start and end. x86 has
// four debug registers: at most four breakpoints per thread. A point may count at several places
// (the copies of an inlined line), each a counter of its own.
//
// Normal context only (a mutex guards the counters); nothing here runs in a handler.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "causal/patch_plan.h"
#include "causal/progress_registry.h"
#include "causal/visit_counter.h"
#include "sampler/runtime/owned_fds.h"

namespace cprof::causal {

class BreakpointPoints {
 public:
  static constexpr size_t kMaxBreakpoints = 4;  // x86's debug registers
  static constexpr size_t kMaxUprobes = 64;     // descriptors per thread, kept few

  explicit BreakpointPoints(VisitCounter kind) : kind_(kind) {}
  // Counts executions of the instruction at `address` (run-time address) as visits of
  // `point`; a point added at several addresses counts the sum. With a `plan`, by a
  // counter patched into the code there, or where that fails by the kernel (`patch_error`
  // then says why). Returns "" or why it cannot be counted.
  std::string add(ProgressPoint* point, uint64_t address, const PatchPlan* plan = nullptr,
                  std::string* patch_error = nullptr);
  // A place in a library the program has just loaded (dlopen): patched only, with other
  // threads running (none of them can be in code that was not there). The kernel's
  // counters are per thread and opened as each one starts, so they would miss the
  // threads already running: "" or why it cannot be patched.
  std::string add_loaded(ProgressPoint* point, uint64_t address, const PatchPlan& plan);
  bool empty() const { return points_.empty(); }
  // Opens the counters of thread `tid`. Returns "" or why they could not be opened.
  std::string arm(pid_t tid);
  // The thread is gone: keeps its final counts and closes its counters.
  void retire(pid_t tid);
  // Held across fork (the runtime's fork hooks): arm() and retire() change the thread
  // list under it, so the child gets the list whole.
  void lock_for_fork() { mutex_.lock(); }
  void unlock_after_fork() { mutex_.unlock(); }
  // After fork, in the child: the inherited counters count the parent's threads.
  void forget_all();
  // Adds the visits counted since the last call to the points.
  void sync();

 private:
  struct Thread {
    pid_t tid;
    std::vector<sampler::OwnedFd> fds;  // one per place, -1 where none is opened
  };
  // A new place of `point` (under the mutex): `counter` where patched, else nullptr.
  void append(ProgressPoint* point, CodePlace place, std::atomic<uint64_t>* counter);
  // A place's visits so far: its patched counter, else its threads' kernel counters.
  uint64_t total(size_t place) const;
  static uint64_t read_count(sampler::OwnedFd fd);

  const VisitCounter kind_;
  std::mutex mutex_;
  std::vector<ProgressPoint*> points_;
  std::vector<CodePlace> places_;
  std::vector<std::atomic<uint64_t>*> patched_;  // per place; nullptr: a kernel counter
  size_t kernel_places_ = 0;
  std::vector<Thread> threads_;
  std::vector<uint64_t> retired_;   // final counts of retired threads, per point
  std::vector<uint64_t> reported_;  // counts already added to the points
};

}  // namespace cprof::causal
