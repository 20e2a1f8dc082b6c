#include "sampler/runtime/runtime.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "sampler/runtime/hooks.h"
#include "sampler/runtime/jit_map.h"
#include "sampler/runtime/moved_code.h"
#include "sampler/runtime/process_identity.h"
#include "sampler/runtime/sampling_signal.h"
#include "sampler/runtime/sanitizer_stack.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/terminating_signals.h"
#include "sampler/runtime/thread_clock.h"

namespace cprof::sampler {
namespace {

std::atomic<Runtime*> g_runtime{nullptr};
std::atomic<const RuntimeHooks*> g_hooks{nullptr};

void signal_entry(int sig, siginfo_t* info, void* ucontext) {
  unpoison_signal_frame(info, ucontext);
  const int saved_errno = errno;
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  const bool sample = rt != nullptr && rt->on_signal(info, ucontext);
  // The program's own use of the signal (sampling_signal.h); never a late signal of an
  // engine's (a timer or perf event of a thread that has just been disarmed).
  if (!sample && !may_be_engine_signal(info)) forward_to_program(sig, info, ucontext);
  errno = saved_errno;
}

void on_thread_key_destroyed(void* value) {
  Runtime* rt = Runtime::instance();
  if (rt != nullptr && value != nullptr) rt->thread_exiting(*static_cast<ThreadState*>(value));
}

}  // namespace

Runtime* Runtime::instance() { return g_runtime.load(std::memory_order_acquire); }

void Runtime::clear_instance() { g_runtime.store(nullptr, std::memory_order_release); }

void set_runtime_hooks(const RuntimeHooks* hooks) { g_hooks.store(hooks, std::memory_order_release); }
const RuntimeHooks* runtime_hooks() { return g_hooks.load(std::memory_order_acquire); }

Runtime::Runtime(RuntimeConfig config) : config_(std::move(config)) {}

Runtime* Runtime::start(RuntimeConfig config, std::vector<std::string> problems,
                        RealPthreadCreate real_pthread_create) {
  // The next definitions the interposers and the handler call (masks, the futex word's
  // syscall) were looked up at load, before this constructor (real.h).
  auto* rt = new Runtime(std::move(config));
  rt->pid_ = getpid();
  rt->real_pthread_create_ = real_pthread_create;
  rt->pending_messages_ = std::move(problems);
  // A signal the process does not handle yet; one it claims later stays the program's too
  // (sampling_signal.h).
  if (rt->config_.signal == 0) rt->config_.signal = choose_sampling_signal();
  const EngineSettings settings = engine_settings(rt->config_);
  rt->period_ns_ = settings.period_ns;
  // A small descriptor limit with no room above it: keep one descriptor only, the results
  // file (a file the runtime cannot open when the program holds every number would lose
  // the results), so that the program opens all but one of the files it does unprofiled.
  if (descriptor_limit_is_tight()) {
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    rt->pending_messages_.push_back(
        "the descriptor limit (RLIMIT_NOFILE, ulimit -n) is " + std::to_string(limit.rlim_cur) +
        " with no room above it: the runtime keeps one descriptor, its results file (POSIX "
        "CPU-time timers instead of perf_event, one descriptor per thread; /proc read without "
        "keeping it open), so that the program can open all the files it can without it but "
        "one");
    rt->config_.backend = "timer";
    rt->metrics_.set_transient(true);
  }
  if (rt->config_.backend == "perf") {
    rt->engine_ = make_perf_event_engine(settings);
    if (std::string why = rt->engine_->probe(); !why.empty()) {
      rt->pending_messages_.push_back("perf_event engine refused (" + why +
                                      "); sampling with POSIX CPU-time timers instead");
      rt->engine_ = make_cpu_timer_engine(settings);
    }
  } else {
    rt->engine_ = make_cpu_timer_engine(settings);
  }
  rt->engine_name_ = rt->engine_->name();
  if (rt->config_.wall_clock)
    rt->wall_engine_ = make_wall_timer_engine(engine_settings(rt->config_, 1));

  const auto method = parse_unwind_method(rt->config_.unwinder);
  if (!method) {
    rt->pending_messages_.push_back("unknown unwinder '" + rt->config_.unwinder +
                                    "'; using dwarf");
  }
  rt->unwind_method_ = method.value_or(UnwindMethod::kDwarf);
  rt->config_.unwinder = std::string(to_string(rt->unwind_method_));

  rt->events_ = resolve_events(rt->config_.events);
  for (const auto& ev : rt->events_) {
    rt->event_attrs_.push_back(ev.kind == ResolvedEvent::Kind::resolved ? &ev.attr : nullptr);
  }
  rt->event_opened_somewhere_.assign(rt->events_.size(), false);
  rt->event_totals_.assign(rt->events_.size(), 0);

  rt->modules_.refresh();
  // dwarf needs libunwind too: it unwinds the frames the CfiTables do not model.
  if (rt->unwind_method_ != UnwindMethod::kFramePointers && !init_unwinding(rt->modules_)) {
    rt->pending_messages_.push_back("libunwind could not be initialized; using frame pointers");
    rt->unwind_method_ = UnwindMethod::kFramePointers;
  }

  std::string error;
  if (!rt->open_results_file(error)) {
    std::fprintf(stderr, "sample-run: %s; this process is not profiled\n", error.c_str());
    return nullptr;  // the half-built runtime is leaked on purpose: nothing refers to it
  }
  rt->write_preamble();

  if (pthread_key_create(&rt->exit_key_, on_thread_key_destroyed) != 0) {
    std::fprintf(stderr, "sample-run: no pthread key left; this process is not profiled\n");
    return nullptr;
  }
  install_sampling_handler(rt->config_.signal, signal_entry);

  // A sample at most: the header, a counter delta per event, the stack to the depth
  // bound plus the frame that marks it truncated.
  rt->threads_.set_ring_bytes_for(
      rt->config_.frequency_hz,
      sizeof(SampleHeader) + sizeof(uint64_t) * (rt->events_.size() + rt->config_.max_depth + 1));
  rt->threads_.load_writable_mappings();
  g_runtime.store(rt, std::memory_order_release);
  // Order matters: pthread_create is already interposed (it consults g_runtime), so every
  // thread created from here on registers itself; only then are the threads that already
  // exist walked, so none is missed.
  rt->thread_started();
  rt->adopt_existing_threads();
  rt->start_writer_thread();
  catch_terminating_signals();
  return rt;
}

bool Runtime::open_results_file(std::string& error) {
  const ProcessIdentity id = current_process_identity();
  error = writer_.open_unique(results_file_stem(config_.output_dir, id));
  return error.empty();
}

void Runtime::write_preamble() {
  const ProcessIdentity id = current_process_identity();
  format::ProcessRecord p = process_record_now(id);
  p.pid = pid_;
  p.engine = engine_name_;
  p.clock = config_.wall_clock ? "cpu+wall" : "cpu";
  p.unwinder = std::string(to_string(unwind_method_));
  p.frequency_hz = config_.frequency_hz;
  p.period_ns = period_ns_;
  std::lock_guard lock(io_mutex_);
  writer_.add(p);
  for (size_t i = 0; i < events_.size(); ++i) {
    const auto& ev = events_[i];
    format::EventRecord r;
    r.index = static_cast<uint32_t>(i);
    r.name = ev.name;
    r.canonical_name = ev.canonical_name;
    r.status = ev.kind == ResolvedEvent::Kind::resolved ? format::EventStatus::ok
                                                         : format::EventStatus::unavailable;
    r.detail = ev.detail;
    writer_.add(r);
  }
  for (const auto& text : pending_messages_) {
    writer_.add(format::MessageRecord{monotonic_ns(), format::MessageLevel::warning, text});
  }
  pending_messages_.clear();
  module_recorder_.reset();
  write_new_modules_locked();
  writer_.flush();
}

void Runtime::message(format::MessageLevel level, const std::string& text) {
  std::lock_guard lock(io_mutex_);
  writer_.add(format::MessageRecord{monotonic_ns(), level, text});
}

void Runtime::arm(ThreadState& state) {
  if (std::string err = engine_->arm(state); !err.empty()) {
    message(format::MessageLevel::warning,
            "thread " + std::to_string(state.tid) + " not sampled: " + err);
  }
  if (wall_engine_) {
    if (std::string err = wall_engine_->arm(state); !err.empty()) {
      message(format::MessageLevel::warning,
              "thread " + std::to_string(state.tid) + " wall clock not sampled: " + err);
    }
  }
  if (!event_attrs_.empty()) {
    const auto errors = state.counters.open(state.tid, event_attrs_);
    std::lock_guard lock(io_mutex_);
    for (size_t i = 0; i < errors.size(); ++i) {
      if (errors[i].empty()) {
        event_opened_somewhere_[i] = true;
      } else if (events_[i].kind == ResolvedEvent::Kind::resolved && events_[i].detail.empty()) {
        // The first thread that cannot open it says why; the report shows it once.
        events_[i].detail = errors[i];
      }
    }
  }
  state.active.store(true, std::memory_order_release);
}

void Runtime::disarm(ThreadState& state) {
  // io_mutex_ guards the counters' totals only: a thread without counters ends without
  // waiting for a drain.
  if (state.counters.size() == 0) {
    disarm_locked(state);
    return;
  }
  std::lock_guard lock(io_mutex_);
  disarm_locked(state);
}

void Runtime::disarm_locked(ThreadState& state) {
  state.active.store(false, std::memory_order_release);
  engine_->disarm(state);
  if (wall_engine_) wall_engine_->disarm(state);
  for (size_t i = 0; i < state.counters.size() && i < event_totals_.size(); ++i) {
    event_totals_[i] += state.counters.totals()[i];
  }
  state.counters.close();
}

void Runtime::thread_started(bool program_blocks_signal) {
  ThreadState* state = threads_.create(gettid_raw(), true, false, monotonic_ns());
  keep_sampling_signal_deliverable(config_.signal, program_blocks_signal);
  pthread_setspecific(exit_key_, state);
  // A private libunwind cache for this thread: the shared one takes a lock per step.
  if (unwind_method_ != UnwindMethod::kFramePointers) register_unwind_thread();
  if (const RuntimeHooks* h = runtime_hooks(); h && h->on_thread_registered) {
    h->on_thread_registered(*state);
  }
  arm(*state);
}

void Runtime::thread_exiting(ThreadState& state) {
  // Block the sampling signal first: a handler must not run on this thread once its
  // sources are closed and its state may be reaped.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, config_.signal);
  real_pthread_sigmask(SIG_BLOCK, &set, nullptr);
  if (const RuntimeHooks* h = runtime_hooks(); h && h->on_thread_exit) h->on_thread_exit(state);
  disarm(state);
  if (unwind_method_ != UnwindMethod::kFramePointers) unregister_unwind_thread();
  prctl(PR_GET_NAME, state.name, 0, 0, 0);
  state.end_ns = monotonic_ns();
  state.cpu_time_ns = thread_cpu_ns(state.tid);
  ThreadRegistry::clear_current();
  state.exited.store(true, std::memory_order_release);
}

void Runtime::adopt_existing_threads() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return;
  const pid_t self = gettid_raw();
  while (dirent* e = readdir(dir)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
    if (tid <= 0 || tid == self) continue;
    ThreadState* state = threads_.create(tid, false, true, monotonic_ns());
    publish_adopted(state);
    if (const RuntimeHooks* h = runtime_hooks(); h && h->on_thread_registered) {
      h->on_thread_registered(*state);
    }
    arm(*state);
  }
  closedir(dir);
}

size_t Runtime::unwind_stack(const ucontext_t* uc, const StackBounds& stack,
                             uint64_t (&frames)[kFrameCapacity], bool& truncated) const noexcept {
  const size_t want = std::min<size_t>(config_.max_depth + 1, kFrameCapacity);
  auto sp = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RSP]);
  ucontext_t moved;
  if (const auto origin =
          moved_code_origin(static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]), sp)) {
    // Unwound from the code it stands for, in a copy: the program's own context, which
    // the kernel restores when the handler returns, is never changed.
    moved = *uc;
    moved.uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(origin->pc);
    moved.uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(origin->sp);
    uc = &moved;
    sp = origin->sp;
  }
  const size_t depth = unwind(unwind_method_, uc, stack.live_part(sp), frames, want);
  truncated = depth > config_.max_depth;
  return truncated ? config_.max_depth : depth;
}

bool Runtime::on_signal(const siginfo_t* info, void* ucontext) {
  ThreadState* ts = ThreadRegistry::current();
  if (ts == nullptr) return false;
  if (ts->in_handler != 0) {
    ts->dropped.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  ts->in_handler = 1;
  // Delivered, so not inside a call that holds the signal: one the program left by a
  // longjmp from its own handler must not be written at exit as a sleep.
  ts->held_since_ns.store(0, std::memory_order_relaxed);
  uint64_t weight = 0;
  uint8_t flags = 0;
  if (engine_->weigh(*ts, info, weight)) {
    flags = 0;
  } else if (wall_engine_ && wall_engine_->weigh(*ts, info, weight)) {
    flags = SampleRing::kWallFlag;
  } else {
    ts->in_handler = 0;
    return false;  // not a sample: the program's signal
  }
  if (!ts->active.load(std::memory_order_acquire)) {
    ts->in_handler = 0;
    return true;
  }
  if (const RuntimeHooks* h = runtime_hooks(); h && h->leave_out_sample &&
                                               (flags & SampleRing::kWallFlag) == 0 &&
                                               h->leave_out_sample(*ts, weight)) {
    ts->in_handler = 0;
    return true;
  }
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  if (ts->stack.empty()) {
    // An adopted thread: its stack is the writable mapping that holds its stack pointer.
    ts->stack = threads_.mapping_containing(static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RSP]));
  }
  uint64_t frames[kFrameCapacity];
  bool truncated = false;
  const size_t depth = unwind_stack(uc, ts->stack, frames, truncated);
  if (truncated) flags |= SampleRing::kTruncatedFlag;
  uint64_t deltas[kMaxCounters] = {};
  const size_t ncounters = ts->counters.size();
  if (ncounters > 0 && (flags & SampleRing::kWallFlag) == 0) ts->counters.read_deltas(deltas);

  SampleHeader header{};
  header.size = SampleRing::entry_size(ncounters, depth);
  header.frames = static_cast<uint16_t>(depth);
  header.counters = static_cast<uint8_t>(ncounters);
  header.flags = flags;
  header.time_ns = monotonic_ns();
  header.weight_ns = weight;
  const SampleRing::Push pushed = ts->ring.push(header, deltas, frames);
  if (pushed == SampleRing::Push::full) {
    ts->dropped.fetch_add(1, std::memory_order_relaxed);
  } else {
    ts->samples.fetch_add(1, std::memory_order_relaxed);
    // Half full before the writer's next tick (deep stacks, a burst, a writer kept off
    // the CPU): wake it now, once per crossing, rather than drop samples at the top.
    if (pushed == SampleRing::Push::stored_past_half) writer_wake_.bump_and_wake();
  }
  if (const RuntimeHooks* h = runtime_hooks(); h && h->on_sample && (flags & SampleRing::kWallFlag) == 0) {
    h->on_sample(*ts, frames, depth, weight);
  }
  ts->in_handler = 0;
  return true;
}

}  // namespace cprof::sampler
