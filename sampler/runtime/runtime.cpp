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
#include "sampler/runtime/process_identity.h"
#include "sampler/runtime/sampling_signal.h"
#include "sampler/runtime/sanitizer_stack.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/terminating_signals.h"

namespace cprof::sampler {
namespace {

std::atomic<Runtime*> g_runtime{nullptr};
std::atomic<const RuntimeHooks*> g_hooks{nullptr};

pid_t gettid_raw() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

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

// Blocks every signal in the calling thread: the writer thread must never run the
// program's handlers or take its process-directed signals.
void block_all_signals() {
  sigset_t all;
  sigfillset(&all);
  real_pthread_sigmask(SIG_BLOCK, &all, nullptr);
}

uint64_t thread_cpu_ns(pid_t tid) {
  timespec ts{};
  const auto clock = static_cast<clockid_t>((~tid) << 3 | 6);
  if (clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

Runtime* Runtime::instance() { return g_runtime.load(std::memory_order_acquire); }

void Runtime::clear_instance() { g_runtime.store(nullptr, std::memory_order_release); }

void set_runtime_hooks(const RuntimeHooks* hooks) { g_hooks.store(hooks, std::memory_order_release); }
const RuntimeHooks* runtime_hooks() { return g_hooks.load(std::memory_order_acquire); }

Runtime::Runtime(RuntimeConfig config) : config_(std::move(config)) {}

Runtime* Runtime::start(RuntimeConfig config, std::vector<std::string> problems,
                        RealPthreadCreate real_pthread_create) {
  resolve_real_mask_functions();  // before any program thread can call an interposer
  FutexWord::resolve();           // before the first handler may wake the writer
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
  const StackBounds live = stack.live_part(static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RSP]));
  const size_t depth = unwind(unwind_method_, uc, live, frames, want);
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

void Runtime::start_writer_thread() {
  stop_requested_.store(false, std::memory_order_release);
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  // The new thread inherits this mask, so it never runs a handler, not even briefly.
  real_pthread_sigmask(SIG_BLOCK, &all, &old);
  writer_running_ = real_pthread_create_(&writer_thread_, nullptr, &Runtime::writer_main, this) == 0;
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

void Runtime::stop() {
  if (stopped_.exchange(true)) return;
  // From here on handlers and interposers see no runtime; the object itself is never
  // freed, so a handler that loaded the pointer just before stays safe.
  g_runtime.store(nullptr, std::memory_order_release);
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
    g_runtime.store(nullptr, std::memory_order_release);
    silence_sources();
    std::lock_guard lock(io_mutex_);
    write_final_records_locked();
    // A signal is named (the launchers look for the line); _exit() is an ordinary end.
    if (sig != 0) {
      const char* name = sigabbrev_np(sig);
      writer_.add(format::MessageRecord{
          monotonic_ns(), format::MessageLevel::info,
          std::string(kWrittenBeforeSignal) + "SIG" + (name != nullptr ? name : "?") +
              " ended the process"});
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
  const double rate = static_cast<double>(cpu_samples_) * 1e9 / static_cast<double>(sampled_cpu_ns_);
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
