#include "report/profile/sampling_coverage.h"

#include <algorithm>
#include <tuple>

namespace cprof::report {
namespace {

double fraction(uint64_t sampled, uint64_t cpu) {
  if (cpu == 0) return 1.0;
  return std::min(1.0, static_cast<double>(sampled) / static_cast<double>(cpu));
}

uint64_t period_of(const ProcessProfile& p) {
  if (p.process.period_ns > 0) return p.process.period_ns;
  if (p.process.frequency_hz > 0) return static_cast<uint64_t>(1e9 / p.process.frequency_hz);
  return 0;
}

bool samples_cpu_clock(const ProcessProfile& p) {
  if (format::is_gpu_engine(p.process.engine)) return false;
  // "cpu" or "cpu+wall"; unknown (no process record, older files) is taken as CPU.
  return p.process.clock.empty() || p.process.clock.find("cpu") != std::string::npos;
}

// A thread's CPU clock counts from its creation, and an image that exec replaced kept
// the thread: the main thread's CPU time also holds what ran before the runtime started
// (the dynamic loader, the runtime's own start: about 10 ms; the earlier image, profiled
// or not). The first metric record's process CPU time bounds it from above (it holds
// the first ~20 ms after the start too, of every thread: that can only hide a problem
// of the main thread, never invent one).
uint64_t cpu_before_start(const ProcessProfile& p) {
  if (p.metrics.empty()) return 0;
  const auto first =
      std::min_element(p.metrics.begin(), p.metrics.end(),
                       [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  return first->cpu_user_ns + first->cpu_system_ns;
}

// The process's context switches over the run (cumulative: the last record's).
uint64_t context_switches(const ProcessProfile& p) {
  if (p.metrics.empty()) return 0;
  const auto last =
      std::max_element(p.metrics.begin(), p.metrics.end(),
                       [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  return last->voluntary_switches + last->involuntary_switches;
}

}  // namespace

double UnsampledThread::coverage() const { return fraction(sampled_ns, cpu_time_ns); }
double ShortThreads::coverage() const { return fraction(sampled_ns, cpu_time_ns); }

uint64_t SamplingCoverage::flagged_threads() const {
  return threads.size() + short_threads.threads;
}

uint64_t SamplingCoverage::flagged_cpu_ns() const {
  uint64_t n = short_threads.cpu_time_ns;
  for (const auto& t : threads) n += t.cpu_time_ns;
  return n;
}

double SamplingCoverage::coverage() const {
  uint64_t sampled = short_threads.sampled_ns;
  for (const auto& t : threads) sampled += t.sampled_ns;
  return fraction(sampled, flagged_cpu_ns());
}

SamplingCoverage check_sampling_coverage(const ProcessProfile& p) {
  SamplingCoverage out;
  if (!samples_cpu_clock(p)) return out;
  const uint64_t period = period_of(p);
  const uint64_t min_cpu = std::max(kCoverageMinCpuNs, kCoverageMinPeriods * period);
  out.min_thread_cpu_ns = min_cpu;
  const uint64_t main_before_start = cpu_before_start(p);
  // Per thread the whole process's switches: which thread switched is not recorded.
  const uint64_t switch_allowance = kCoverageSwitchCostNs * context_switches(p);
  const auto too_low = [](uint64_t sampled, uint64_t expected) {
    return static_cast<double>(sampled) < kCoverageMinFraction * static_cast<double>(expected);
  };
  const auto less = [](uint64_t a, uint64_t b) { return a - std::min(a, b); };

  ShortThreads group;
  uint64_t group_expected = 0;  // before the switches, which the group is allowed once
  for (uint32_t i = 0; i < p.threads.size(); ++i) {
    const auto& t = p.threads[i];
    if (!t.ended || t.cpu_time_ns == 0) continue;  // CPU time unknown (still running at the end)
    const uint64_t cpu = t.cpu_time_ns;
    const uint64_t sampled = t.cpu_weight_ns + t.dropped_samples * period;
    const uint64_t profiled = t.tid == p.process.pid ? less(cpu, main_before_start) : cpu;
    const uint64_t expected = less(profiled, switch_allowance);
    if (expected < min_cpu) {
      ++group.threads;
      group.cpu_time_ns += cpu;
      group.sampled_ns += sampled;
      group_expected += profiled;
    } else if (too_low(sampled, expected)) {
      out.threads.push_back({.thread = i, .cpu_time_ns = cpu, .sampled_ns = sampled});
      out.unsampled_cpu_ns += less(cpu, sampled);
    }
  }
  const uint64_t per_short_thread = std::max(kCoverageShortThreadAllowanceNs, 2 * period);
  group_expected = less(less(group_expected, switch_allowance), group.threads * per_short_thread);
  if (group_expected >= min_cpu && too_low(group.sampled_ns, group_expected)) {
    out.short_threads = group;
    out.unsampled_cpu_ns += less(group.cpu_time_ns, group.sampled_ns);
  }
  std::sort(out.threads.begin(), out.threads.end(), [&](const auto& a, const auto& b) {
    return std::tuple(less(b.cpu_time_ns, b.sampled_ns), p.threads[a.thread].tid) <
           std::tuple(less(a.cpu_time_ns, a.sampled_ns), p.threads[b.thread].tid);
  });
  return out;
}

}  // namespace cprof::report
