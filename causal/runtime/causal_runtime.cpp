#include "causal/runtime/causal_runtime.h"

#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "causal/runtime/breakpoints.h"
#include "causal/runtime/device_wait.h"
#include "causal/runtime/exec_resolve.h"
#include "causal/runtime/locations_cache.h"
#include "causal/runtime/openmp_waits.h"
#include "causal/runtime/real_calls.h"
#include "causal/runtime/syscall_dispatch.h"
#include "causal/sample_step.h"
#include "common/monotonic.h"
#include "format/writer.h"
#include "sampler/runtime/hooks.h"
#include "sampler/runtime/interpose.h"
#include "sampler/runtime/sanitizer_stack.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/thread_registry.h"

namespace cprof::causal {
namespace {

std::atomic<CausalRuntime*> g_causal{nullptr};

// Region spans kept per process (region_spans.h); 0: none. Read here rather than with the
// other settings: only the runtime uses it, causal-run passes it through unchanged.
constexpr const char* kRegionSpansEnv = "CPROF_CAUSAL_REGION_SPANS";

uint64_t now_ns() { return monotonic_clock().now_ns(); }

// The main executable's load bias (the first object dl_iterate_phdr reports).
uint64_t main_load_bias() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uint64_t*>(out) = info->dlpi_addr;
        return 1;
      },
      &bias);
  return bias;
}

std::string self_executable() {
  char buf[PATH_MAX];
  if (realpath("/proc/self/exe", buf) == nullptr) return {};
  return buf;
}

// Load bias of every loaded library, by path (as the loader named it, and resolved).
std::map<std::string, uint64_t> library_load_biases() {
  std::map<std::string, uint64_t> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* p) {
        auto& m = *static_cast<std::map<std::string, uint64_t>*>(p);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
        m.emplace(info->dlpi_name, info->dlpi_addr);
        char buf[PATH_MAX];
        if (realpath(info->dlpi_name, buf) != nullptr) m.emplace(buf, info->dlpi_addr);
        return 0;
      },
      &out);
  return out;
}

const sampler::RuntimeHooks* hooks_table();

}  // namespace

CausalRuntime* CausalRuntime::instance() { return g_causal.load(std::memory_order_acquire); }

CausalThread* CausalRuntime::current_thread() {
  sampler::ThreadState* ts = sampler::ThreadRegistry::current();
  return ts != nullptr ? static_cast<CausalThread*>(ts->extension) : nullptr;
}

CausalRuntime::CausalRuntime(CausalSettings settings, std::vector<std::string> problems)
    : settings_(std::move(settings)), problems_(std::move(problems)), delays_(real_sleeper()) {}

CausalRuntime* CausalRuntime::start(uint64_t period_ns) {
  std::vector<std::string> problems;
  CausalSettings settings = causal_settings_from_environment(problems);
  if (!settings.seed_given) {
    // Preloaded without causal-run (which always passes one): a seed of this process's
    // own, or every such run would draw the same schedule.
    settings.experiments.seed = monotonic_ns() * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(getpid());
  }
  auto* rt = new CausalRuntime(std::move(settings), std::move(problems));
  rt->load_bias_ = main_load_bias();
  if (const char* v = getenv(kRegionSpansEnv); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end != '\0') {
      rt->problems_.push_back(std::string(kRegionSpansEnv) + "='" + v + "' is not a number; ignored");
    } else {
      rt->region_span_cap_ = n;
    }
  }
  rt->end_to_end_ = rt->settings_.end_to_end_speedup.has_value();
  std::string error;
  const std::string exe = self_executable();
  if (!rt->settings_.executable.empty() && exe != rt->settings_.executable &&
      !rt->settings_.locations_file.empty() && !rt->settings_.resolver.empty() && !rt->end_to_end_) {
    // An exec'd program: its locations are resolved by the controller thread, so that
    // the program starts without waiting (exec_resolve.h).
    rt->resolve_for_ = exe;
    rt->experiments_enabled_ = true;
    rt->settings_.experiments.period_ns = period_ns;
  } else {
    rt->experiments_enabled_ = rt->load_locations(error);
  }
  if (!error.empty()) rt->problems_.push_back(error);
  if (rt->experiments_enabled_ && rt->end_to_end_ && rt->settings_.automatic) {
    // Before sampling starts: the handler counts into it from the first sample.
    rt->tally_ = std::make_unique<LocationTally>(rt->table_.size());
  }
  if (rt->experiments_enabled_ && rt->resolve_for_.empty()) {
    // The experiments record the sampling period: s * period is the delay per sample.
    rt->settings_.experiments.period_ns = period_ns;
    rt->make_controller(rt->settings_.experiments);
  }
  if (!rt->settings_.breakpoints.empty()) {
    rt->breakpoints_ = std::make_unique<BreakpointPoints>(rt->settings_.visit_counter);
    for (const auto& bp : rt->settings_.breakpoints) {
      // Named "FILE:LINE (breakpoint)" by causal-run: the record keeps FILE and LINE.
      const std::string spec = bp.name.substr(0, bp.name.rfind(" (breakpoint)"));
      const size_t colon = spec.rfind(':');
      const std::string file = colon == std::string::npos ? "" : spec.substr(0, colon);
      const auto line =
          colon == std::string::npos
              ? 0u
              : static_cast<uint32_t>(std::strtoul(spec.c_str() + colon + 1, nullptr, 10));
      ProgressPoint* p = rt->progress_.find_or_add(bp.name, ProgressKind::throughput,
                                                   ProgressSource::breakpoint, file, line);
      if (std::string err = rt->breakpoints_->add(p, bp.address + rt->load_bias_); !err.empty()) {
        rt->problems_.push_back("progress point " + bp.name + " not counted: " + err);
      }
    }
  }
  g_causal.store(rt, std::memory_order_release);
  sampler::set_runtime_hooks(hooks_table());
  return rt;
}

void CausalRuntime::make_controller(ExperimentConfig config) {
  controller_.store(new ExperimentController(std::move(config), table_, fixed_, &recent_, delays_,
                                             progress_, monotonic_clock()),
                    std::memory_order_release);
}

bool CausalRuntime::load_locations(std::string& error) {
  if (settings_.locations_file.empty()) return false;  // only progress points count
  const std::string exe = self_executable();
  if (!settings_.executable.empty() && exe != settings_.executable) {
    error = "no experiments in " + exe + ": the locations were resolved for " +
            settings_.executable;
    return false;
  }
  return load_locations_file(settings_.locations_file, error);
}

bool CausalRuntime::load_locations_file(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the locations file " + path;
    return false;
  }
  std::optional<std::map<std::string, uint64_t>> biases;  // only when a line names a library
  std::set<std::string> not_loaded;
  std::string text;
  while (std::getline(in, text)) {
    auto line = parse_location_line(text);
    if (!line) continue;
    uint64_t bias = load_bias_;
    if (!line->module.empty()) {
      if (!biases) biases = library_load_biases();
      auto it = biases->find(line->module);
      if (it == biases->end()) {
        not_loaded.insert(line->module);
        continue;
      }
      bias = it->second;
    }
    std::vector<AddressRange> ranges;
    for (const auto& r : line->ranges) ranges.push_back(AddressRange{r.start + bias, r.end + bias});
    const uint32_t id = table_.add(line->name, std::move(ranges));
    if (!settings_.automatic) fixed_.push_back(id);
  }
  for (const auto& m : not_loaded) {
    problems_.push_back("no experiments on code in " + m + ": not loaded when the program started");
  }
  table_.finish();
  if (table_.size() == 0) {
    error = "the locations file " + path + " lists no location";
    return false;
  }
  return true;
}

bool CausalRuntime::resolve_exec_locations() {
  // Another process of this run may have resolved the same program already.
  const LocationsCache cache(settings_.locations_cache, resolve_for_);
  std::string error;
  bool ok = false;
  if (const auto cached = cache.locations()) {
    ok = load_locations_file(*cached, error);
  } else if (auto cached_error = cache.error()) {
    error = std::move(*cached_error);
  } else {
    char path[] = "/tmp/cprof-causal-exec-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
      queue_message(format::MessageLevel::warning, "no experiments in " + resolve_for_ +
                    ": cannot create a temporary file in /tmp for its locations");
      resolve_for_.clear();
      experiments_enabled_ = false;
      return false;
    }
    ::close(fd);
    error = resolve_locations_for(settings_.resolver, settings_.selection_args, resolve_for_, path);
    if (error.empty()) {
      ok = load_locations_file(path, error);
      if (!cache.store_locations(path)) std::remove(path);
    } else {
      cache.store_error(error);
      std::remove(path);
    }
  }
  const std::string program = resolve_for_;
  resolve_for_.clear();  // done (a forked child keeps the result)
  experiments_enabled_ = ok;
  for (auto& p : problems_) queue_message(format::MessageLevel::warning, p);
  problems_.clear();
  if (!ok) {
    queue_message(format::MessageLevel::warning, "no experiments in " + program + ": " + error);
    return false;
  }
  make_controller(settings_.experiments);
  return true;
}

void CausalRuntime::start_dispatch() {
  if (std::string warning = dispatch::refresh(); !warning.empty()) {
    queue_message(format::MessageLevel::warning, std::move(warning));
  }
}

const Location* CausalRuntime::pair_location(uint64_t seed) const {
  const auto name = LocationsCache(settings_.locations_cache, self_executable()).pair_location(seed);
  if (!name) return nullptr;
  for (uint32_t id = 0; id < table_.size(); ++id) {
    if (table_.at(id).name == *name) return &table_.at(id);
  }
  return nullptr;
}

bool CausalRuntime::finish_end_to_end(format::ExperimentRecord& record) {
  if (tally_ == nullptr || record.speedup != 0) return true;
  // An automatic baseline: its location is drawn from this run's in-scope samples, so
  // the pair experiments on code in proportion to the time it takes (a uniform draw
  // over every line or function in scope would mostly pick code that never runs).
  const std::vector<uint64_t> counts = tally_->counts();
  const uint64_t seed = settings_.experiments.seed;
  const auto id = draw_by_count(counts, seed);
  if (!id) {
    if (samples_seen_.load(std::memory_order_relaxed) >= 50) {
      queue_no_sample_in_scope();
    }
    return false;
  }
  record.location = table_.at(*id).name;
  record.location_id = *id;
  record.selected_samples = counts[*id];
  if (!forked_child_) {
    LocationsCache(settings_.locations_cache, self_executable()).store_pair_location(seed, record.location);
  }
  return true;
}

void CausalRuntime::start_controller() {
  const sampler::Runtime* srt = sampler::Runtime::instance();
  if (srt == nullptr) return;
  for (auto& p : problems_) queue_message(format::MessageLevel::warning, p);
  problems_.clear();
  if (!experiments_enabled_) return;
  ExperimentController* controller = this->controller();
  if (end_to_end_) {
    // One experiment for the whole run, on one location, which the two runs of a pair
    // (one seed: a baseline, then a sped-up run) share.
    sync_counted_points();
    const uint64_t seed = settings_.experiments.seed;
    const double speedup = *settings_.end_to_end_speedup;
    const Location* location = nullptr;
    if (!fixed_.empty()) {
      location = &table_.at(fixed_[seed % fixed_.size()]);  // the seed picks among them
    } else if (speedup == 0) {
      // Automatic: the baseline draws its location at its end, from where its samples
      // ran (finish_end_to_end); until then it slows nothing down, whatever it names.
      location = &table_.at(0);
    } else {
      location = pair_location(seed);
      if (location == nullptr) {
        queue_message(format::MessageLevel::warning,
                      "end to end: no experiment in this run: the baseline run of its pair "
                      "(seed " + std::to_string(seed) + ") chose no location (no sample of "
                      "it was in scope, or it did not end normally)");
        return;
      }
    }
    ExperimentPlan plan{location, speedup, 0};
    dispatch::set_trapping(true, plan.speedup > 0);
    controller->begin(plan);
    cpu_wait_.begin();  // the window is the whole run
    return;
  }
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  // The real one: the interposer keeps SIGSYS unblocked in program threads.
  sampler::real_pthread_sigmask(SIG_BLOCK, &all, &old);
  stop_requested_.store(false);
  controller_running_ = sampler::real_pthread_create()(&controller_thread_, nullptr,
                                                       &CausalRuntime::controller_main, this) == 0;
  sampler::real_pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!controller_running_) {
    queue_message(format::MessageLevel::error, "the experiment controller thread could not start");
  }
}

void* CausalRuntime::controller_main(void* self) {
  sampler::unpoison_own_stack();  // started past the sanitizer's interceptor
  pthread_setname_np(pthread_self(), "cprof-causal");
  static_cast<CausalRuntime*>(self)->controller_loop();
  return nullptr;
}

void CausalRuntime::controller_loop() {
  const Sleeper sleeper = real_sleeper();
  if (!resolve_for_.empty() && !resolve_exec_locations()) return;
  ExperimentController* const controller = this->controller();
  constexpr uint64_t kSliceNs = 10000000;  // stop requests are seen within 10 ms
  // No experiment before the program's first progress visit: what runs before it (start-up,
  // reading input) is not the work the points count, and an experiment over it measures a
  // rate the program never keeps (an OpenMP program's first 100 ms had 6 rounds where the
  // next ones had 120, and turned its prediction negative). A forked child inherits its
  // parent's counts and starts at once.
  const auto progress_started = [this] {
    sync_counted_points();
    for (const ProgressCounts& c : progress_.counts()) {
      if (c.visits + c.begin + c.end > 0) return true;
    }
    return false;
  };
  uint64_t waited = 0;
  bool started = false;
  while (!stop_requested_.load(std::memory_order_acquire) && !(started = progress_started())) {
    waited += sleeper.sleep_ns(kSliceNs);
    waited_for_progress_ns_.store(waited, std::memory_order_release);
  }
  if (started) waited_for_progress_ns_.store(0, std::memory_order_release);
  while (!stop_requested_.load(std::memory_order_acquire)) {
    const auto plan = controller->plan_next();
    if (!plan) {
      sleeper.sleep_ns(std::max<uint64_t>(controller->config().cooloff_ns, kSliceNs));
      continue;
    }
    sync_counted_points();
    // Inline futex calls trap during experiments only (syscall_dispatch.h).
    dispatch::set_trapping(true, plan->speedup > 0);
    controller->begin(*plan);
    if (plan->warmup_ns == 0) cpu_wait_.begin();  // measuring starts here
    // The warm-up (ExperimentConfig::warmup_share): delays as usual, nothing measured.
    uint64_t warmed = 0;
    while (warmed < plan->warmup_ns && !stop_requested_.load(std::memory_order_acquire)) {
      warmed += sleeper.sleep_ns(std::min(kSliceNs, plan->warmup_ns - warmed));
    }
    if (plan->warmup_ns > 0) {
      sync_counted_points();
      controller->start_measuring();
      cpu_wait_.begin();
    }
    uint64_t measured = 0;
    while (measured < plan->duration_ns && !stop_requested_.load(std::memory_order_acquire)) {
      measured += sleeper.sleep_ns(std::min(kSliceNs, plan->duration_ns - measured));
      controller->observe_in_flight();
    }
    sync_counted_points();
    format::ExperimentRecord record = controller->finish();
    dispatch::set_trapping(false, false);
    // An experiment cut short by the exit (in its warm-up or later) is dropped: the
    // program was winding down, not making progress as usual.
    if (stop_requested_.load(std::memory_order_acquire)) break;
    cpu_wait_.end();
    queue(std::move(record));
    sleeper.sleep_ns(controller->config().cooloff_ns);
  }
}

void CausalRuntime::stop() {
  if (stopping_.exchange(true, std::memory_order_acq_rel)) return;
  if (controller_running_) {
    stop_requested_.store(true, std::memory_order_release);
    join_thread(controller_thread_, nullptr);
    controller_running_ = false;
    // Said only after a run long enough for an experiment (a shell a script starts does
    // not say it).
    if (ExperimentController* controller = this->controller();
        controller != nullptr &&
        waited_for_progress_ns_.load(std::memory_order_acquire) >= controller->config().initial_duration_ns) {
      queue_message(format::MessageLevel::info, kNoProgressMessage);
    }
  }
  // Enough samples to tell (50 ms of CPU time at the default rate), none in scope.
  if (settings_.automatic && !end_to_end_ && experiments_enabled_ && controller() != nullptr &&
      samples_seen_.load(std::memory_order_relaxed) >= 50 && recent_.noted() == 0) {
    queue_no_sample_in_scope();
  }
  if (end_to_end_ && cpu_wait_.window_open()) cpu_wait_.end();
  if (std::string busy = cpu_wait_warning(cpu_wait_.run_ns(), cpu_wait_.wait_ns(),
                                          settings_.cpu_wait_warn_share);
      !busy.empty()) {
    queue_message(format::MessageLevel::warning, std::move(busy));
  }
  if (ExperimentController* controller = this->controller();
      end_to_end_ && controller != nullptr && controller->running() &&
      !killed_.load(std::memory_order_acquire)) {
    sync_counted_points();
    format::ExperimentRecord record = controller->finish();
    record.mode = format::ExperimentMode::end_to_end;
    if (finish_end_to_end(record)) queue(std::move(record));
  }
  dispatch::set_trapping(false, false);
  queue_futex_counts();
  if (std::string gpu = device_wait_summary(); !gpu.empty()) {
    queue_message(format::MessageLevel::info, std::move(gpu));
  }
  if (std::string omp = runtime_wait_summary(); !omp.empty()) {
    queue_message(format::MessageLevel::info, std::move(omp));
  }
  if (const uint64_t n = paying_samples_.load(std::memory_order_relaxed); n > 0) {
    // Parsed by the tests: keep the "samples left out while paying delays: N" prefix.
    const uint64_t ms = paying_sample_ns_.load(std::memory_order_relaxed) / 1000000;
    queue_message(format::MessageLevel::info,
                  "samples left out while paying delays: " + std::to_string(n) + " (" +
                      std::to_string(ms) +
                      " ms of CPU time, the pauses' own system calls: the runtime's cost, "
                      "not the program's work)");
  }
  uint64_t region_calls = 0;
  for (size_t i = 0; i < progress_.size(); ++i) {
    const ProgressPoint* p = progress_.at(i);
    const RegionStats stats = p->region();
    region_calls += stats.count() + p->dropped_durations();
    if (stats.count() == 0) continue;
    format::RegionRecord r;
    r.name = p->name();
    r.time_ns = now_ns();
    r.count = stats.count();
    r.mean_ns = stats.mean();
    r.stddev_ns = stats.stddev();
    r.min_ns = static_cast<uint64_t>(stats.min());
    r.max_ns = static_cast<uint64_t>(stats.max());
    r.dropped = p->dropped_durations();
    queue(std::move(r));
  }
  queue_region_span_counts(region_calls);
}

void CausalRuntime::queue_region_span_counts(uint64_t calls) {
  const RegionSpanRing* ring = spans_.load(std::memory_order_acquire);
  if (ring == nullptr) return;
  // Threads still running may add calls after this count: the numbers are as of now.
  const uint64_t tickets = ring->tickets();
  const uint64_t over_cap = calls > tickets ? calls - tickets : 0;
  const uint64_t full = ring->dropped_full();
  if (over_cap == 0 && full == 0) return;
  // Parsed by the tests: keep the "region spans: " prefix.
  queue_message(format::MessageLevel::info,
                "region spans: " + std::to_string(ring->recorded()) + " of " +
                    std::to_string(calls) + " timed-region calls recorded as spans; " +
                    std::to_string(over_cap) + " after the first " + std::to_string(ring->cap()) +
                    " (" + kRegionSpansEnv + "), " + std::to_string(full) +
                    " dropped with the buffer full; the region summaries count every call");
}

void CausalRuntime::sync_counted_points() {
  if (breakpoints_) breakpoints_->sync();
}

void CausalRuntime::queue_no_sample_in_scope() {
  queue_message(format::MessageLevel::info,
                std::string(kNoSampleInScopeMessage) + " (" + std::to_string(table_.size()) +
                    (table_.size() == 1 ? " location)" : " locations)"));
}

void CausalRuntime::queue_futex_counts() {
  const FutexCounts& c = futex_counts();
  const auto n = [](const std::atomic<uint64_t>& v) { return std::to_string(v.load()); };
  const auto via = static_cast<unsigned>(FutexPath::syscall_function);
  const auto trapped = static_cast<unsigned>(FutexPath::dispatch);
  if (c.waits[via] + c.wakes[via] + c.waits[trapped] + c.wakes[trapped] == 0 && !dispatch::active()) {
    return;
  }
  // Parsed by the tests: keep the "futex waits intercepted: N" prefix.
  queue_message(format::MessageLevel::info,
                "futex waits intercepted: " + std::to_string(c.waits[via] + c.waits[trapped]) +
                    " (syscall(): " + n(c.waits[via]) + " waits, " + n(c.wakes[via]) +
                    " wakes; Syscall User Dispatch, " + dispatch::describe() + ": " +
                    n(c.waits[trapped]) + " waits, " + n(c.wakes[trapped]) + " wakes, " +
                    n(c.other_syscalls) + " other system calls)");
}

void CausalRuntime::queue(format::Record record) {
  std::lock_guard lock(queue_->mutex);
  queue_->records.push_back(std::move(record));
}

void CausalRuntime::queue_message(format::MessageLevel level, std::string text) {
  queue(format::MessageRecord{now_ns(), level, std::move(text)});
}

void CausalRuntime::latency_begin(ProgressPoint& point) {
  point.begin();
  if (CausalThread* t = current_thread(); t != nullptr && t->open_count < CausalThread::kMaxOpen) {
    t->open[t->open_count++] = CausalThread::Open{&point, now_ns()};
  }
}

void CausalRuntime::enable_region_spans() {
  if (region_span_cap_ == 0 || spans_.load(std::memory_order_acquire) != nullptr) return;
  // Two first points on two threads may both get here: one ring wins, the other goes.
  auto* ring = new RegionSpanRing(region_span_cap_);
  RegionSpanRing* none = nullptr;
  if (!spans_.compare_exchange_strong(none, ring, std::memory_order_acq_rel)) delete ring;
}

void CausalRuntime::latency_end(ProgressPoint& point) {
  sampler::ThreadState* ts = sampler::ThreadRegistry::current();
  if (auto* t = ts != nullptr ? static_cast<CausalThread*>(ts->extension) : nullptr) {
    for (unsigned i = t->open_count; i-- > 0;) {
      if (t->open[i].point != &point) continue;
      const uint64_t begin = t->open[i].start_ns;
      const uint64_t end = now_ns();
      point.record_duration(end - begin);
      // The span too: lock-free, dropped (and counted) when the ring is full or past
      // the cap, so the program never waits for the writer.
      if (RegionSpanRing* ring = spans_.load(std::memory_order_acquire)) {
        ring->push(SpanEntry{point.id(), static_cast<int32_t>(ts->tid), begin, end});
      }
      for (unsigned j = i + 1; j < t->open_count; ++j) t->open[j - 1] = t->open[j];
      --t->open_count;
      break;
    }
  }
  point.end();
}

// ---- hooks ----

// A thread that pays a delay sleeps, but the sleep's system calls and the switches take
// CPU time, and a sample of it has the program's frames above DelayAccounting::pay: as a
// sample of the program it would show the runtime's pauses as the program's work (2.4% of
// speedtest1's samples), and as a sample "in" the selected location it would insert more
// delay for the delay. Left out, and counted.
bool CausalRuntime::hook_leave_out_sample(sampler::ThreadState& ts, uint64_t weight_ns) {
  const auto* t = static_cast<const CausalThread*>(ts.extension);
  if (t == nullptr || !t->delay.paying.load(std::memory_order_acquire)) return false;
  if (CausalRuntime* rt = instance()) {
    rt->paying_samples_.fetch_add(1, std::memory_order_relaxed);
    rt->paying_sample_ns_.fetch_add(weight_ns, std::memory_order_relaxed);
  }
  return true;
}

void CausalRuntime::hook_on_sample(sampler::ThreadState& ts, const uint64_t* frames, size_t depth,
                                   uint64_t /*weight_ns*/) {
  CausalRuntime* rt = instance();
  auto* t = static_cast<CausalThread*>(ts.extension);
  ExperimentController* controller = rt != nullptr ? rt->controller() : nullptr;
  if (t == nullptr || controller == nullptr) return;
  rt->samples_seen_.fetch_add(1, std::memory_order_relaxed);
  const SampleStep step{rt->delays_, controller->selected(),
                        rt->settings_.automatic ? &rt->table_ : nullptr, &rt->recent_,
                        runtime_code(), system_code(), rt->tally_.get()};
  switch (causal_sample(step, t->delay, std::span<const uint64_t>(frames, depth))) {
    case SampleOutcome::in_device_wait: note_device_wait_sample(); break;
    case SampleOutcome::in_runtime_wait: note_runtime_wait_sample(); break;
    case SampleOutcome::counted: break;
  }
}

void CausalRuntime::hook_thread_registered(sampler::ThreadState& ts) {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  // On the new thread itself (adopted threads are registered from the main thread and
  // asked by signal instead).
  if (ts.tid == gettid()) dispatch::thread_started();
  auto* t = new CausalThread;
  rt->delays_.thread_started(t->delay);
  ts.extension = t;
  if (rt->breakpoints_) {
    if (std::string err = rt->breakpoints_->arm(ts.tid); !err.empty()) {
      rt->queue_message(format::MessageLevel::warning,
                        "thread " + std::to_string(ts.tid) + ": progress point not counted: " + err);
    }
  }
}

void CausalRuntime::hook_thread_exit(sampler::ThreadState& ts) {
  CausalRuntime* rt = instance();
  auto* t = static_cast<CausalThread*>(ts.extension);
  // It may be joined: pay first, so the joiner, credited, is not ahead of it.
  if (rt != nullptr && t != nullptr) rt->delays_.before_wake_other(t->delay);
  // Its run and wait times, which a reading at the window's end would not find.
  if (rt != nullptr && rt->cpu_wait_.window_open()) {
    if (const auto times = read_own_cpu_times()) rt->cpu_wait_.thread_ended(ts.tid, *times);
  }
}

void CausalRuntime::hook_thread_freed(sampler::ThreadState& ts) {
  CausalRuntime* rt = instance();
  if (rt != nullptr && rt->breakpoints_) rt->breakpoints_->retire(ts.tid);
  delete static_cast<CausalThread*>(ts.extension);
  ts.extension = nullptr;
}

void CausalRuntime::hook_fork_prepare() {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  // After the sampling runtime's locks (a thread registers, then arms breakpoints, under
  // the registry's); both are leaves otherwise.
  rt->progress_.lock_for_fork();
  if (rt->breakpoints_) rt->breakpoints_->lock_for_fork();
  rt->cpu_wait_.fork_prepare();
}

void CausalRuntime::hook_fork_release() {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  rt->cpu_wait_.fork_release();
  if (rt->breakpoints_) rt->breakpoints_->unlock_after_fork();
  rt->progress_.unlock_after_fork();
}

void CausalRuntime::hook_fork_child() {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  rt->forked_child_ = true;
  rt->stopping_.store(false, std::memory_order_release);  // the child ends on its own
  rt->killed_.store(false, std::memory_order_release);
  dispatch::fork_child();
  dispatch::set_trapping(false, false);  // the parent's experiment does not go on here
  // Only the forking thread exists; the controller thread and any lock it held did not
  // come along. The child runs experiments of its own, written to its own file.
  rt->queue_ = new Queue;  // the parent's may be locked; its records are the parent's
  rt->cpu_wait_.forget();  // the parent's threads and windows
  rt->progress_.after_fork_in_child();
  // Likewise the spans: the parent's are the parent's, and a thread that did not come
  // along may have left a slot claimed and never filled.
  if (rt->spans_.load(std::memory_order_acquire) != nullptr) {
    rt->spans_.store(new RegionSpanRing(rt->region_span_cap_), std::memory_order_release);
  }
  rt->controller_running_ = false;
  if (rt->controller() != nullptr && rt->controller()->running()) rt->delays_.end_experiment();
  if (rt->breakpoints_) {
    rt->breakpoints_->forget_all();
    if (sampler::ThreadState* ts = sampler::ThreadRegistry::current()) rt->breakpoints_->arm(ts->tid);
  }
  if (rt->experiments_enabled_ && rt->controller() != nullptr) {
    // A fresh controller (the old one is left: a handler may still read it); its own seed.
    auto config = rt->controller()->config();
    config.seed = config.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(getpid());
    rt->make_controller(std::move(config));
  }
  rt->start_controller();
}

void CausalRuntime::hook_modules_changed() {
  if (CausalRuntime* rt = instance()) rt->start_dispatch();
}

void CausalRuntime::hook_drain(format::ResultsWriter& writer) {
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  std::vector<format::Record> records;
  size_t written = 0;
  {
    std::lock_guard lock(rt->queue_->mutex);
    records.swap(rt->queue_->records);
    written = rt->queue_->points_written;
    rt->queue_->points_written = rt->progress_.size();
  }
  // Points first: the experiments that follow name them.
  for (size_t i = written; i < rt->progress_.size(); ++i) {
    const ProgressPoint* p = rt->progress_.at(i);
    format::ProgressPointRecord r;
    r.id = p->id();
    r.name = p->name();
    r.kind = static_cast<format::ProgressPointKind>(p->kind());
    r.source = static_cast<format::ProgressPointSource>(p->source());
    r.file = p->file();
    r.line = p->line();
    r.time_ns = now_ns();
    writer.add(r);
  }
  for (const auto& r : records) writer.add(r);
  if (RegionSpanRing* ring = rt->spans_.load(std::memory_order_acquire)) {
    // One record per point per drain; a drain takes at most a ring's worth, the rest
    // waits for the next one (20 ms), so one record stays small. The ring's single
    // consumer: every drain (writer thread, dlopen, exec, exit) holds the runtime's I/O
    // mutex.
    std::map<uint32_t, format::RegionSpansRecord> batches;
    SpanEntry s;
    for (size_t n = 0; n <= RegionSpanRing::kDefaultSlots && ring->pop(s); ++n) {
      auto& b = batches[s.point_id];
      if (b.spans.empty()) {
        b.point_id = s.point_id;
        b.name = s.point_id < rt->progress_.size() ? rt->progress_.at(s.point_id)->name() : "";
      }
      b.spans.push_back(format::RegionSpan{s.tid, s.begin_ns, s.end_ns});
    }
    for (const auto& [id, b] : batches) writer.add(b);
  }
}

void CausalRuntime::hook_dying(int sig) {
  // On the writer thread: the process ends without its exit path, through _exit() (sig 0:
  // an ordinary end, whose end-to-end experiment counts) or a terminating signal.
  CausalRuntime* rt = instance();
  if (rt == nullptr) return;
  if (sig != 0) rt->killed_.store(true, std::memory_order_release);
  rt->stop();
}

namespace {

const sampler::RuntimeHooks* hooks_table() {
  static const sampler::RuntimeHooks hooks{
      .leave_out_sample = &CausalRuntime::hook_leave_out_sample,
      .on_sample = &CausalRuntime::hook_on_sample,
      .on_thread_registered = &CausalRuntime::hook_thread_registered,
      .on_thread_exit = &CausalRuntime::hook_thread_exit,
      .on_thread_freed = &CausalRuntime::hook_thread_freed,
      .on_fork_prepare = &CausalRuntime::hook_fork_prepare,
      .on_fork_release = &CausalRuntime::hook_fork_release,
      .on_fork_child = &CausalRuntime::hook_fork_child,
      .on_modules_changed = &CausalRuntime::hook_modules_changed,
      .on_drain = &CausalRuntime::hook_drain,
      .on_dying = &CausalRuntime::hook_dying,
  };
  return &hooks;
}

}  // namespace

}  // namespace cprof::causal
