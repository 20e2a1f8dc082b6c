#include "report/profile/cpu_accounting.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace cprof::report {
namespace {

constexpr uint64_t kExecGapNs = 1'000'000'000;  // an exec's new image starts within this

uint64_t less(uint64_t a, uint64_t b) { return a - std::min(a, b); }

uint64_t period_of(const ProcessProfile& p) {
  if (p.process.period_ns > 0) return p.process.period_ns;
  if (p.process.frequency_hz > 0) return static_cast<uint64_t>(1e9 / p.process.frequency_hz);
  return 0;
}

// Sampled on the CPU clock: not a GPU hooks' file, not a wall-clock-only sampler.
bool samples_cpu_clock(const ProcessProfile& p) {
  if (!p.has_process_record || format::is_gpu_engine(p.process.engine)) return false;
  return p.process.clock.empty() || p.process.clock.find("cpu") != std::string::npos;
}

// The process's CPU time as its usage says: the metric records' (cumulative, the whole
// process, dead threads included) or its threads' (ended ones), whichever is more.
// Returns false when neither was recorded.
bool recorded_usage(const ProcessProfile& p, uint64_t& ns) {
  bool known = false;
  uint64_t metrics = 0, threads = 0;
  for (const auto& m : p.metrics) {
    metrics = std::max(metrics, m.cpu_user_ns + m.cpu_system_ns);
    known = true;
  }
  for (const auto& t : p.threads) {
    if (!t.ended) continue;
    threads += t.cpu_time_ns;
    known = known || t.cpu_time_ns > 0;
  }
  ns = std::max(metrics, threads);
  return known;
}

}  // namespace

uint64_t CpuAccount::unsampled_process_ns() const {
  uint64_t n = 0;
  for (const auto& g : unsampled_processes) n += g.cpu_time_ns;
  return n;
}

uint64_t CpuAccount::unsampled_thread_ns() const {
  uint64_t n = 0;
  for (const auto& g : unsampled_threads) n += g.cpu_time_ns;
  return n;
}

uint64_t CpuAccount::unsampled_other_ns() const {
  return less(unsampled_ns, unsampled_process_ns() + unsampled_thread_ns());
}

double CpuAccount::coverage() const {
  if (recorded_ns == 0) return 1.0;
  return std::min(1.0, static_cast<double>(sampled_ns) / static_cast<double>(recorded_ns));
}

CpuAccount account_cpu_time(const std::vector<ProcessProfile>& processes) {
  CpuAccount out;
  out.processes.resize(processes.size());
  std::vector<uint64_t> usage(processes.size(), 0);
  // Images of one (host, pid) in start order: exec chains.
  std::map<std::tuple<std::string, int64_t>, std::vector<size_t>> by_pid;
  for (size_t i = 0; i < processes.size(); ++i) {
    const auto& p = processes[i];
    auto& c = out.processes[i];
    if (!samples_cpu_clock(p) || !recorded_usage(p, usage[i])) continue;
    c.accounted = true;
    c.recorded_ns = usage[i];
    for (const auto& t : p.threads) c.sampled_ns += t.cpu_weight_ns;
    c.sampled_ns += p.dropped_samples() * period_of(p);
    by_pid[{p.process.hostname, p.process.pid}].push_back(i);
  }
  for (auto& [key, images] : by_pid) {
    if (images.size() < 2) continue;
    std::sort(images.begin(), images.end(), [&](size_t a, size_t b) {
      return processes[a].process.start_monotonic_ns < processes[b].process.start_monotonic_ns;
    });
    for (size_t k = 1; k < images.size(); ++k) {
      const auto& before = processes[images[k - 1]];
      const uint64_t start = processes[images[k]].process.start_monotonic_ns;
      if (start < before.last_time_ns || start - before.last_time_ns > kExecGapNs) continue;
      auto& c = out.processes[images[k]];
      c.recorded_ns = less(usage[images[k]], usage[images[k - 1]]);
    }
  }

  std::map<std::string, UnsampledProcesses> groups;
  for (size_t i = 0; i < processes.size(); ++i) {
    const auto& p = processes[i];
    const auto& c = out.processes[i];
    if (!c.accounted) continue;
    out.recorded_ns += c.recorded_ns;
    out.sampled_ns += c.sampled_ns;
    out.unsampled_ns += c.unsampled_ns();
    if (c.sampled_ns == 0) {
      if (c.recorded_ns == 0) continue;
      std::string exe =
          p.process.executable.empty() ? p.file.filename().string() : p.process.executable;
      if (const auto slash = exe.rfind('/'); slash != std::string::npos)
        exe = exe.substr(slash + 1);
      auto& g = groups[exe];
      g.executable = exe;
      g.cpu_time_ns += c.recorded_ns;
      g.members.push_back(i);
      g.short_processes =
          g.short_processes && c.recorded_ns < std::max(kShortProcessCpuNs, 2 * period_of(p));
      continue;
    }
    UnsampledThreads t{.process = i};
    for (const auto& th : p.threads) {
      if (!th.ended || th.cpu_time_ns == 0 || th.cpu_weight_ns > 0 || th.dropped_samples > 0) {
        continue;
      }
      ++t.threads;
      t.cpu_time_ns += th.cpu_time_ns;
    }
    // A main thread's CPU clock also holds an earlier image's time: never more than the
    // process left unsampled.
    t.cpu_time_ns = std::min(t.cpu_time_ns, c.unsampled_ns());
    if (t.threads > 0 && t.cpu_time_ns > 0) out.unsampled_threads.push_back(t);
  }
  for (auto& [exe, g] : groups) {
    std::stable_sort(g.members.begin(), g.members.end(), [&](size_t a, size_t b) {
      return out.processes[a].recorded_ns > out.processes[b].recorded_ns;
    });
    out.unsampled_processes.push_back(std::move(g));
  }
  std::stable_sort(out.unsampled_processes.begin(), out.unsampled_processes.end(),
                   [](const auto& a, const auto& b) { return a.cpu_time_ns > b.cpu_time_ns; });
  std::stable_sort(out.unsampled_threads.begin(), out.unsampled_threads.end(),
                   [](const auto& a, const auto& b) { return a.cpu_time_ns > b.cpu_time_ns; });
  return out;
}

}  // namespace cprof::report
