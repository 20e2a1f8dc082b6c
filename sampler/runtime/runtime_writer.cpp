// The sampling runtime's writer thread: drains the threads' rings into the results file
// at its pace, with the records of threads that start, change name and end.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "sampler/runtime/hooks.h"
#include "sampler/runtime/jit_map.h"
#include "sampler/runtime/runtime.h"
#include "sampler/runtime/sanitizer_stack.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/terminating_signals.h"
#include "sampler/runtime/thread_clock.h"

namespace cprof::sampler {
namespace {

// Blocks every signal in the calling thread: the writer thread must never run the
// program's handlers or take its process-directed signals.
void block_all_signals() {
  sigset_t all;
  sigfillset(&all);
  real_pthread_sigmask(SIG_BLOCK, &all, nullptr);
}

}  // namespace

void Runtime::start_writer_thread() {
  stop_requested_.store(false, std::memory_order_release);
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  // The new thread inherits this mask, so it never runs a handler, not even briefly.
  real_pthread_sigmask(SIG_BLOCK, &all, &old);
  writer_running_ =
      real_pthread_create_(&writer_thread_, nullptr, &Runtime::writer_main, this) == 0;
  real_pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!writer_running_) message(format::MessageLevel::error, "writer thread could not start");
}

void Runtime::stop_writer_thread() {
  if (!writer_running_) return;
  stop_requested_.store(true, std::memory_order_release);
  writer_wake_.bump_and_wake();
  pthread_join(writer_thread_, nullptr);
  writer_running_ = false;
}

void* Runtime::writer_main(void* self) {
  unpoison_own_stack();  // started past the sanitizer's interceptor (sanitizer_stack.h)
  block_all_signals();
  pthread_setname_np(pthread_self(), "cprof-writer");
  static_cast<Runtime*>(self)->writer_loop();
  return nullptr;
}

void Runtime::writer_loop() {
  // Rings are drained often (they are small); the file gets a chunk at the flush interval,
  // which bounds what a crash can lose.
  constexpr uint64_t kDrainIntervalNs = 20000000;
  while (true) {
    // Read before the checks: a bump after them changes the word, so the wait returns.
    const uint32_t seen = writer_wake_.load();
    if (stop_requested_.load(std::memory_order_acquire)) break;
    if (dying_.load() == 1) {
      write_before_dying_on_writer();  // the last thing this process does
      return;
    }
    // A write asked for while the last drain ran bumped the word before `seen` was read:
    // no waiting for it.
    if (writes_asked_.load(std::memory_order_acquire) == writes_done_.load()) {
      writer_wake_.wait_while(seen, kDrainIntervalNs);
    }
    if (stop_requested_.load(std::memory_order_acquire) || dying_.load() == 1) continue;
    const uint32_t asked = writes_asked_.load(std::memory_order_acquire);
    const bool write_asked = asked != writes_done_.load();
    if (write_asked && !std::exchange(said_abort_handler_write_, true)) {
      message(format::MessageLevel::info, kWrittenAfterAbortHandler);
    }
    drain(write_asked);
    if (write_asked) {
      writes_done_.store(asked);
      writes_done_.wake_all();
    }
    // Tables whose modules' samples went to libunwind (slower, same frames) for long
    // enough that parsing them now pays (rent or buy, sampler/unwind/cfi_policy.h).
    if (unwind_method_ == UnwindMethod::kDwarf) modules_.build_wanted_tables();
  }
}

void Runtime::drain(bool flush_file) {
  std::lock_guard lock(io_mutex_);
  drain_locked(flush_file);
}

void Runtime::drain_locked(bool flush_file) {
  if (!writer_.is_open()) return;
  const uint64_t now = monotonic_ns();
  write_new_modules_locked();
  uint64_t frames[1024];
  uint64_t counters[kMaxCounters];
  const ModuleSnapshot* snapshot = modules_.snapshot();
  bool outside_modules = false;  // a sample's PC in no module: remapped code? (below)
  // Renames are rare (a thread names itself as it starts): only after one does the
  // writer read every running thread's name again.
  const bool renamed = names_changed_.exchange(false, std::memory_order_acq_rel);
  threads_.for_each([&](ThreadState& ts) {
    if (!ts.announced.load(std::memory_order_relaxed)) {
      write_thread_start_locked(ts);
    } else if (renamed && !ts.exited.load(std::memory_order_acquire)) {
      write_name_change_locked(ts, now);
    }
    SampleHeader h{};
    while (ts.ring.pop(h, counters, kMaxCounters, frames, 1024)) {
      format::SampleRecord s;
      s.tid = ts.tid;
      s.time_ns = h.time_ns;
      s.weight_ns = h.weight_ns;
      s.clock = (h.flags & SampleRing::kWallFlag) != 0 ? format::SampleClock::wall
                                                       : format::SampleClock::cpu;
      s.truncated = (h.flags & SampleRing::kTruncatedFlag) != 0;
      s.frames.assign(frames, frames + h.frames);
      if (h.frames > 0 && !outside_modules && snapshot != nullptr) {
        outside_modules = snapshot->find(frames[0]) == nullptr;
      }
      s.counter_deltas.assign(counters, counters + h.counters);
      writer_.add(s);
    }
  });
  if (outside_modules) module_recorder_.write_remapped(snapshot, writer_, now);
  const RuntimeHooks* hooks = runtime_hooks();
  threads_.reap([&](ThreadState& ts) {
    write_thread_end_locked(ts);
    if (hooks && hooks->on_thread_freed) hooks->on_thread_freed(ts);
  });
  if (hooks && hooks->on_drain) hooks->on_drain(writer_);
  if (now - last_metrics_ns_ >= config_.metrics_interval_ms * 1000000ull) {
    writer_.add(metrics_.read(now));
    last_metrics_ns_ = now;
  }
  if (flush_file || now - last_flush_ns_ >= config_.flush_interval_ms * 1000000ull) {
    writer_.flush();
    last_flush_ns_ = now;
  }
}

void Runtime::write_new_modules_locked() {
  module_recorder_.write_new(modules_.snapshot(), writer_, monotonic_ns());
}

namespace {

// The thread's name now: the one it saved on its way out, or its comm while it runs.
void read_thread_name(const ThreadState& ts, char (&out)[16]) {
  out[0] = '\0';
  if (ts.exited.load(std::memory_order_acquire)) {
    std::memcpy(out, ts.name, sizeof out);
    out[sizeof out - 1] = '\0';
    return;
  }
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/comm", ts.tid);
  if (const OwnedFile f = fopen_owned(path); f.file != nullptr) {
    if (std::fgets(out, sizeof out, f.file) != nullptr) out[std::strcspn(out, "\n")] = '\0';
    fclose_owned(f);
  }
}

}  // namespace

void Runtime::write_thread_start_locked(ThreadState& ts) {
  format::ThreadRecord r;
  r.tid = ts.tid;
  r.time_ns = ts.start_ns;
  r.existed_before_start = ts.existed_before_start;
  read_thread_name(ts, ts.announced_name);
  r.name = ts.announced_name;
  writer_.add(r);
  ts.announced.store(true, std::memory_order_relaxed);
}

void Runtime::write_name_change_locked(ThreadState& ts, uint64_t time_ns) {
  char name[16];
  read_thread_name(ts, name);
  if (name[0] == '\0' || std::strcmp(name, ts.announced_name) == 0) return;
  writer_.add(format::ThreadNameRecord{.tid = ts.tid, .time_ns = time_ns, .name = name});
  std::memcpy(ts.announced_name, name, sizeof name);
}

void Runtime::write_thread_end_locked(ThreadState& ts) {
  if (!ts.announced.load(std::memory_order_relaxed)) write_thread_start_locked(ts);
  format::ThreadEndRecord r;
  r.tid = ts.tid;
  r.time_ns = ts.end_ns != 0 ? ts.end_ns : monotonic_ns();
  // Named after it began (a JVM names its threads once they run): the report shows the
  // name it ended with.
  write_name_change_locked(ts, r.time_ns);
  r.cpu_time_ns = ts.cpu_time_ns;
  r.samples = ts.samples.load(std::memory_order_relaxed);
  r.dropped_samples = ts.dropped.load(std::memory_order_relaxed);
  writer_.add(r);
  sampled_cpu_ns_ += r.cpu_time_ns;
  cpu_samples_ += r.samples;
}

}  // namespace cprof::sampler
