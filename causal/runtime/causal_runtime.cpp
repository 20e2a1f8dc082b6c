#include "causal/runtime/causal_runtime.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "causal/line_progress_name.h"
#include "causal/runtime/breakpoints.h"
#include "causal/runtime/real_calls.h"
#include "causal/runtime/syscall_dispatch.h"
#include "common/monotonic.h"
#include "common/mpi_launchers.h"
#include "sampler/runtime/hooks.h"
#include "sampler/runtime/process_identity.h"
#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/thread_registry.h"

namespace cprof::causal {
namespace {

std::atomic<CausalRuntime*> g_causal{nullptr};

}  // namespace

uint64_t CausalRuntime::now_ns() { return monotonic_clock().now_ns(); }

CausalRuntime* CausalRuntime::instance() { return g_causal.load(std::memory_order_acquire); }

CausalThread* CausalRuntime::current_thread() {
  sampler::ThreadState* ts = sampler::ThreadRegistry::current();
  return ts != nullptr ? static_cast<CausalThread*>(ts->extension) : nullptr;
}

CausalRuntime::CausalRuntime(CausalSettings settings, std::vector<std::string> problems)
    : settings_(std::move(settings)),
      problems_(std::move(problems)),
      delays_(real_sleeper(), settings_.whole_samples ? Clock{} : monotonic_clock()) {}

CausalRuntime* CausalRuntime::start() {
  std::vector<std::string> problems;
  CausalSettings settings = causal_settings_from_environment(problems);
  if (!settings.seed_given) {
    // Preloaded without causal-run (which always passes one): a seed of this process's
    // own, or every such run would draw the same schedule.
    settings.experiments.seed = monotonic_ns() * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(getpid());
  }
  auto* rt = new CausalRuntime(std::move(settings), std::move(problems));
  rt->load_bias_ = main_load_bias();
  if (const char* v = getenv(env::kRegionSpans); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end != '\0') {
      rt->problems_.push_back(std::string(env::kRegionSpans) + "='" + v +
                              "' is not a number; ignored");
    } else {
      rt->region_span_cap_ = n;
    }
  }
  rt->end_to_end_ = rt->settings_.end_to_end_speedup.has_value();
  if (!rt->settings_.job.empty() && !rt->end_to_end_) {
    // An MPI rank: every rank draws from the job's seed and counts delays in the page the
    // host's ranks share (job_lockstep.h). Before any thread registers: their counts start
    // from the shared global.
    rt->settings_.experiments.seed =
        job_seed(rt->settings_.job, rt->settings_.seed_given ? rt->settings_.experiments.seed : 0);
    // CPROF_CAUSAL_HOST_PER_RANK=1: each rank on a "host" of its own, its own page, for
    // testing delays across hosts on one machine (the MPI wrappers exchange them then).
    const std::string host_key =
        rt->settings_.host_per_rank
            ? rt->settings_.job + " rank " + std::to_string(sampler::rank_from_environment())
            : rt->settings_.job;
    rt->job_ = std::make_unique<JobSegment>(host_key);
    if (JobShared* shared = rt->job_->get()) {
      rt->delays_.share_global(&shared->global_delay_ns);
      rt->delays_.share_imported(&shared->imported_ns);
    } else {
      rt->problems_.push_back("MPI job: the ranks of this host cannot share their delays (" +
                              rt->job_->error() + "); each rank delays its own threads only");
    }
    // causal-run --rank: the location is sped up in that rank only; the others run the
    // same experiments and pay its delays, their own samples of it not counted.
    if (rt->settings_.only_rank >= 0) {
      rt->sits_out_ = sampler::rank_from_environment() != rt->settings_.only_rank;
      // causal-run -- mpirun: the launcher did not know the job's size; each rank does.
      if (const int64_t size = sampler::job_size_from_environment();
          size > 0 && rt->settings_.only_rank >= size) {
        rt->problems_.push_back("--rank " + std::to_string(rt->settings_.only_rank) +
                                ": this job has " + std::to_string(size) +
                                " ranks; no rank's samples of the location count, so its "
                                "experiments measure nothing");
      }
    }
  }
  std::string error;
  const std::string exe = self_executable();
  if (exe != rt->settings_.executable && !rt->settings_.locations_file.empty() &&
      !rt->settings_.resolver.empty() && !rt->end_to_end_) {
    // An exec'd program: its locations are resolved by the controller thread, so that
    // the program starts without waiting (exec_resolve.h).
    rt->resolve_for_ = exe;
    rt->experiments_enabled_ = true;
  } else {
    rt->experiments_enabled_ = rt->load_locations(error);
  }
  if (!rt->settings_.job.empty() && is_mpi_launcher(exe)) {
    // mpirun, orted...: the ranks' program is what --line names; nothing to run here.
    rt->resolve_for_.clear();
    rt->experiments_enabled_ = false;
    error.clear();
  }
  if (!error.empty()) rt->problems_.push_back(error);
  if (rt->experiments_enabled_ && rt->end_to_end_ && rt->settings_.automatic) {
    // Before sampling starts: the handler counts into it from the first sample.
    rt->tally_ = std::make_unique<LocationTally>(rt->table_.size());
  }
  if (!rt->settings_.breakpoints.empty()) {
    rt->breakpoints_ = std::make_unique<BreakpointPoints>(rt->settings_.visit_counter);
    std::optional<std::map<std::string, uint64_t>> biases;  // only when a point is in a library
    for (const auto& bp : rt->settings_.breakpoints) {
      // The executable's points are addresses of the image causal-run resolved them for:
      // in another one an exec'd program runs, they would land anywhere (a uprobe or a
      // patch on arbitrary bytes), so they are not counted there.
      if (bp.module.empty() && !rt->settings_.executable.empty() &&
          exe != rt->settings_.executable) {
        continue;
      }
      // Named "FILE:LINE (--progress)" by causal-run: the record keeps FILE and LINE.
      const std::string spec(line_progress_spec(bp.name));
      const size_t colon = spec.rfind(':');
      const std::string file = colon == std::string::npos ? "" : spec.substr(0, colon);
      const auto line =
          colon == std::string::npos
              ? 0u
              : static_cast<uint32_t>(std::strtoul(spec.c_str() + colon + 1, nullptr, 10));
      ProgressPoint* p = rt->progress_.find_or_add(bp.name, ProgressKind::throughput,
                                                   ProgressSource::breakpoint, file, line);
      std::optional<PatchPlan> plan;
      std::string patch_error;
      if (!bp.patch.empty()) plan = parse_patch_plan(bp.patch, patch_error);
      uint64_t bias = rt->load_bias_;
      if (!bp.module.empty()) {
        if (!biases) biases = library_load_biases();
        const auto library = biases->find(bp.module);
        if (library == biases->end()) {
          // Loaded later (dlopen), if ever: counted from then on (attach_later_libraries).
          if (!plan) {
            rt->problems_.push_back(
                "progress point " + bp.name + " not counted: " + bp.module +
                " was not loaded when the program started, and a library loaded later is "
                "counted in its code only" +
                (patch_error.empty() ? std::string() : " (" + patch_error + ")"));
            continue;
          }
          rt->later_points_.push_back(LaterPoint{p, bp.module, bp.address, std::move(*plan)});
          continue;
        }
        bias = library->second;
      }
      if (std::string err =
              rt->breakpoints_->add(p, bp.address + bias, plan ? &*plan : nullptr, &patch_error);
          !err.empty()) {
        rt->problems_.push_back("progress point " + bp.name + " not counted: " + err);
      } else if (!patch_error.empty()) {
        rt->problems_.push_back("progress point " + bp.name + ": counted by the kernel (" +
                                to_string(rt->settings_.visit_counter) +
                                "s), not in the program's code: " + patch_error);
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

void CausalRuntime::start_dispatch() {
  if (std::string warning = dispatch::refresh(); !warning.empty()) {
    queue_message(format::MessageLevel::warning, std::move(warning));
  }
}

void CausalRuntime::start_controller() {
  const sampler::Runtime* srt = sampler::Runtime::instance();
  if (srt == nullptr) return;
  for (auto& p : problems_) queue_message(format::MessageLevel::warning, p);
  problems_.clear();
  if (!experiments_enabled_) return;
  if (controller() == nullptr) {
    // The experiments record the sampling period: s * period is the delay per sample. An
    // exec'd program's controller is made once its locations are resolved.
    settings_.experiments.period_ns = srt->period_ns();
    if (resolve_for_.empty()) make_controller(settings_.experiments);
  }
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
  controller_running_ = real::pthread_create()(&controller_thread_, nullptr,
                                               &CausalRuntime::controller_main, this) == 0;
  sampler::real_pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!controller_running_) {
    queue_message(format::MessageLevel::error, "the experiment controller thread could not start");
  }
}

void CausalRuntime::sync_counted_points() {
  if (breakpoints_) breakpoints_->sync();
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

}  // namespace cprof::causal
