#pragma once
// Which threads are sampled, and where the signal handler finds a thread's state.
//
// A thread created through the interposed pthread_create registers itself and its state
// is found through a thread_local pointer. Threads that already ran when the runtime
// loaded are registered from /proc by another thread ("adopted"): the handler finds them
// once by tid in a small lock-free table and caches the pointer in its thread_local.
//
// Signal-safety contract: current() is async-signal-safe (a TLS read, or a lock-free scan
// of the adopted table plus gettid). Everything else takes the registry mutex and runs
// outside signal context.

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "sampler/runtime/thread_state.h"
#include "sampler/unwind/stack_bounds.h"

namespace cprof::sampler {

class ThreadRegistry {
 public:
  static constexpr size_t kMinRingBytes = size_t{32} * 1024;
  static constexpr size_t kMaxRingBytes = size_t{1024} * 1024;

  // Each ring holds about 50 ms of samples at `frequency_hz` (the writer drains every
  // 20 ms), and at least 16, each of `sample_bytes` at most (the depth bound's stack and
  // the counters), so neither high rates nor deep stacks drop: 32 KiB at the usual
  // rates and depth, up to 1 MiB.
  void set_ring_bytes_for(double frequency_hz, size_t sample_bytes);
  size_t ring_bytes() const { return ring_bytes_; }
  static constexpr size_t kMaxAdopted = 256;

  // Allocates a state (with its ring) for `tid`. For the calling thread, pass
  // is_current=true: its stack bounds are computed and its thread_local set.
  ThreadState* create(pid_t tid, bool is_current, bool existed_before_start, uint64_t now_ns);
  // Async-signal-safe.
  static ThreadState* current();
  // Forgets the calling thread's thread_local (after fork, or when it exits).
  static void clear_current();

  // Calls f on every registered state, under the registry mutex.
  void for_each(const std::function<void(ThreadState&)>& f);
  // Removes and frees the states of exited threads whose rings are empty, after calling
  // `retire` on each (to write its end record).
  void reap(const std::function<void(ThreadState&)>& retire);
  // After fork, in the child: every state's counters are closed and `release` called on
  // it (the engines' state is the parent's threads'), and every state but the calling
  // thread's is dropped.
  void keep_only_current_after_fork(const std::function<void(ThreadState&)>& release);

  std::mutex& mutex() { return mutex_; }

  // Stack ranges of the adopted threads are not known when they are registered; the
  // handler finds the mapping that holds their stack pointer in this snapshot of
  // /proc/self/maps, taken once at start. Async-signal-safe lookup.
  void load_writable_mappings();
  StackBounds mapping_containing(uint64_t address) const;

 private:
  std::mutex mutex_;
  size_t ring_bytes_ = kMinRingBytes;
  std::vector<ThreadState*> states_;
  std::vector<StackBounds> writable_;  // sorted, immutable after load_writable_mappings
  std::atomic<size_t> writable_count_{0};
};

// The adopted threads, by tid, for the handler's first lookup.
void publish_adopted(ThreadState* state);

}  // namespace cprof::sampler
