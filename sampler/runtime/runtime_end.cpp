// The end of a sampled process: the exit path (stop), a death by signal or _exit() that
// the writer thread answers, and the records only the end can write.
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

void Runtime::stop() {
  if (stopped_.exchange(true)) return;
  // From here on handlers and interposers see no runtime; the object itself is never
  // freed, so a handler that loaded the pointer just before stays safe.
  clear_instance();
  // Silence every source first, so the rings stop growing, then write what is in them.
  silence_sources();
  stop_writer_thread();
  std::lock_guard lock(io_mutex_);
  write_final_records_locked();
  writer_.close();
  writes_done_.wake_all();  // a write_after_abort_handler() waiting: everything is written
}

bool Runtime::writer_can_answer() const noexcept {
  // Not while the exit path runs (it writes everything itself), nor without a writer, nor
  // in a vfork child (it shares this memory, not the writer thread).
  return writer_running_ && !stopped_.load(std::memory_order_acquire) &&
         static_cast<pid_t>(::syscall(SYS_getpid)) == pid_;
}

void Runtime::write_before_dying(int sig) noexcept {
  if (!writer_can_answer()) return;
  uint32_t none = 0;
  if (dying_.compare_exchange(none, 1)) {
    dying_signal_.store(sig, std::memory_order_release);
    writer_wake_.bump_and_wake();
  }
  // The writer may never answer (this thread was stopped holding a lock it needs, in
  // malloc say): then the process ends after a second with what is written.
  const uint64_t deadline = monotonic_ns() + 1000000000ull;
  for (uint32_t state = dying_.load(); state != 2; state = dying_.load()) {
    const uint64_t now = monotonic_ns();
    if (now >= deadline) break;
    dying_.wait_while(state, deadline - now);
  }
}

void Runtime::write_after_abort_handler() noexcept {
  if (!writer_can_answer()) return;
  const uint32_t ticket = writes_asked_.fetch_add(1, std::memory_order_acq_rel) + 1;
  writer_wake_.bump_and_wake();
  // Written once the writer has served this ticket or a later one (the counter wraps).
  const uint64_t deadline = monotonic_ns() + 1000000000ull;
  for (uint32_t done = writes_done_.load(); static_cast<int32_t>(done - ticket) < 0;
       done = writes_done_.load()) {
    const uint64_t now = monotonic_ns();
    if (now >= deadline || stopped_.load(std::memory_order_acquire)) break;
    writes_done_.wait_while(done, deadline - now);
  }
}

void Runtime::write_before_dying_on_writer() {
  const int sig = dying_signal_.load(std::memory_order_acquire);
  if (!stopped_.exchange(true)) {
    clear_instance();
    silence_sources();
    std::lock_guard lock(io_mutex_);
    write_final_records_locked();
    // A signal is named (the launchers look for the line); _exit() is an ordinary end.
    if (sig != 0) {
      const char* name = sigabbrev_np(sig);
      writer_.add(format::MessageRecord{monotonic_ns(), format::MessageLevel::info,
                                        std::string(kWrittenBeforeSignal) + "SIG" +
                                            (name != nullptr ? name : "?") + " ended the process"});
    }
    writer_.flush();
  }
  // The hook's end after the runtime's own is on disk: it takes locks and joins threads
  // that the thread ending the process might hold or wait for, and then only the hook's
  // records wait out the second the ending thread gives the writer.
  if (const RuntimeHooks* hooks = runtime_hooks(); hooks && hooks->on_dying) {
    hooks->on_dying(sig);
    std::lock_guard lock(io_mutex_);
    if (hooks->on_drain) hooks->on_drain(writer_);
    writer_.flush();
  }
  {
    std::lock_guard lock(io_mutex_);
    writer_.finish();  // the end record: the file is whole (format/framing.h)
  }
  dying_.store(2);
  dying_.wake_all();
  writes_done_.wake_all();
}

void Runtime::silence_sources() {
  const uint64_t now = monotonic_ns();
  // io_mutex_ before the registry's, the order the writer's drain and fork take them
  // in: disarming under the registry lock and then taking io_mutex_ (for the counters'
  // totals) deadlocked against a drain at exit.
  std::lock_guard lock(io_mutex_);
  threads_.for_each([&](ThreadState& ts) {
    if (ts.exited.load(std::memory_order_acquire)) return;
    disarm_locked(ts);
    ts.end_ns = now;
    ts.cpu_time_ns = thread_cpu_ns(ts.tid);
    if (ts.tid == gettid_raw()) prctl(PR_GET_NAME, ts.name, 0, 0, 0);
  });
}

void Runtime::write_held_calls_locked() {
  if (!config_.wall_clock) return;
  uint64_t frames[kFrameCapacity];
  threads_.for_each([&](ThreadState& ts) {
    if (ts.exited.load(std::memory_order_acquire)) return;
    const uint64_t since = ts.held_since_ns.load(std::memory_order_acquire);
    if (since == 0) return;
    const HeldCallRegisters& regs = ts.held_registers;
    ucontext_t uc{};
    greg_t* g = uc.uc_mcontext.gregs;
    g[REG_RIP] = static_cast<greg_t>(regs.pc);
    g[REG_RSP] = static_cast<greg_t>(regs.sp);
    g[REG_RBP] = static_cast<greg_t>(regs.fp);
    g[REG_RBX] = static_cast<greg_t>(regs.rbx);
    g[REG_R12] = static_cast<greg_t>(regs.r12);
    g[REG_R13] = static_cast<greg_t>(regs.r13);
    g[REG_R14] = static_cast<greg_t>(regs.r14);
    g[REG_R15] = static_cast<greg_t>(regs.r15);
    // The thread sleeps in the call, its frames above `sp` as they were; should it wake
    // now and run on, every read is still checked against its stack's bounds.
    const StackBounds stack = ts.stack.empty() ? threads_.mapping_containing(regs.sp) : ts.stack;
    format::SampleRecord s;
    const size_t depth = unwind_stack(&uc, stack, frames, s.truncated);
    const uint64_t end = ts.end_ns != 0 ? ts.end_ns : monotonic_ns();
    s.tid = ts.tid;
    s.time_ns = end;
    s.weight_ns = end > since ? end - since : 0;
    s.clock = format::SampleClock::wall;
    s.frames.assign(frames, frames + depth);
    writer_.add(s);
    ts.samples.fetch_add(1, std::memory_order_relaxed);
  });
}

void Runtime::write_final_records_locked() {
  drain_locked(false);
  write_held_calls_locked();
  threads_.for_each([&](ThreadState& ts) {
    if (!ts.exited.load(std::memory_order_acquire)) write_thread_end_locked(ts);
  });
  for (size_t i = 0; i < events_.size(); ++i) {
    if (events_[i].kind != ResolvedEvent::Kind::resolved) continue;
    format::EventRecord r;
    r.index = static_cast<uint32_t>(i);
    r.name = events_[i].name;
    r.canonical_name = events_[i].canonical_name;
    if (!event_opened_somewhere_[i]) {
      r.status = format::EventStatus::unavailable;
      r.detail = events_[i].detail;
    } else if (event_totals_[i] == 0) {
      r.status = format::EventStatus::counted_zero;
      r.detail = "opened but counted nothing";
    } else {
      continue;  // the start-up record already says ok
    }
    writer_.add(r);
  }
  warn_if_timer_rate_low_locked();
  writer_.add(metrics_.read(monotonic_ns()));
  if (writer_.is_open() && !copy_jit_map(static_cast<int>(getpid()), writer_.path())) {
    writer_.add(format::MessageRecord{monotonic_ns(), format::MessageLevel::warning,
                                      "the JIT symbol map /tmp/perf-" + std::to_string(getpid()) +
                                          ".map could not be copied next to the results"});
  }
}

void Runtime::warn_if_timer_rate_low_locked() {
  // CPU-time timers expire on the scheduler tick (CONFIG_HZ), so above it fewer samples
  // arrive than asked for. Each weighs the periods that passed, so times stay right; say
  // that the resolution is lower rather than leave the user to wonder.
  if (engine_name_ != "timer" || sampled_cpu_ns_ < 200000000) return;
  const double rate =
      static_cast<double>(cpu_samples_) * 1e9 / static_cast<double>(sampled_cpu_ns_);
  if (rate >= 0.7 * config_.frequency_hz) return;
  char text[256];
  std::snprintf(text, sizeof text,
                "the timer backend delivered %.0f samples per CPU-second of the %.0f asked for "
                "(CPU-time timers fire on the scheduler tick); times are weighted correctly, "
                "with coarser resolution",
                rate, config_.frequency_hz);
  writer_.add(format::MessageRecord{monotonic_ns(), format::MessageLevel::warning, text});
}

}  // namespace cprof::sampler
