#include "report/profile/gpu_tracing.h"

#include <algorithm>
#include <cmath>

namespace cprof::report {
namespace {

struct Launch {
  uint64_t at_ns;   // submission (or start)
  uint64_t end_ns;  // the execution's end; at_ns when untimed
};

template <typename Item>
void add_launches(const std::vector<Item>& items, std::vector<Launch>& out) {
  for (const auto& x : items) {
    const uint64_t at = x.submit_ns != 0 ? x.submit_ns : x.start_ns;
    if (at == 0) continue;
    out.push_back({at, x.timed() ? std::max(at, x.end_ns) : at});
  }
}

// Whether t lies in one of the sorted, disjoint windows.
bool inside(const std::vector<TimeInterval>& windows, uint64_t t) {
  auto it = std::upper_bound(windows.begin(), windows.end(), t,
                             [](uint64_t v, const TimeInterval& w) { return v < w.start_ns; });
  return it != windows.begin() && t <= std::prev(it)->end_ns;
}

}  // namespace

GpuProcessTracing gpu_process_tracing(const GpuActivity& g, uint64_t run_end_ns) {
  GpuProcessTracing t;
  if (g.trace_windows.empty()) return t;
  std::vector<TimeInterval> recorded;
  t.duty_min = t.duty_max = g.trace_windows.front().duty;
  t.period_min_ns = t.period_max_ns = g.trace_windows.front().period_ns;
  for (const auto& w : g.trace_windows) {
    recorded.push_back({w.start_ns, w.end_ns});
    t.duty_min = std::min(t.duty_min, w.duty);
    t.duty_max = std::max(t.duty_max, w.duty);
    t.period_min_ns = std::min(t.period_min_ns, w.period_ns);
    t.period_max_ns = std::max(t.period_max_ns, w.period_ns);
  }
  t.windows = merge_intervals(std::move(recorded));
  t.recorded_windows = t.windows.size();

  std::vector<Launch> launches;
  add_launches(g.kernels, launches);
  add_launches(g.copies, launches);
  // Launches after the last recorded window (and its switch lag) were made in windows
  // whose records were lost: group them from the first into windows of the planned
  // length. A group ends at its last execution's end, but not past its planned length
  // unless a launch of it is later still.
  const uint64_t last_end = t.windows.back().end_ns;
  const auto planned =
      static_cast<uint64_t>(std::llround(t.duty_max * static_cast<double>(t.period_max_ns)));
  std::vector<Launch> tail;
  for (const auto& l : launches) {
    if (l.at_ns > last_end + kWindowSwitchLagNs) tail.push_back(l);
  }
  std::sort(tail.begin(), tail.end(),
            [](const Launch& a, const Launch& b) { return a.at_ns < b.at_ns; });
  for (size_t i = 0; i < tail.size();) {
    const uint64_t start = tail[i].at_ns;
    uint64_t last_launch = start, last_exec = tail[i].end_ns;
    for (; i < tail.size() && tail[i].at_ns <= start + planned; ++i) {
      last_launch = tail[i].at_ns;
      last_exec = std::max(last_exec, tail[i].end_ns);
    }
    t.windows.push_back({start, std::max(last_launch, std::min(last_exec, start + planned))});
    ++t.inferred_windows;
  }

  for (const auto& w : t.windows) t.traced_ns += w.length_ns();
  for (const auto& l : launches) t.outside += !inside(t.windows, l.at_ns);
  t.span_start_ns = t.windows.front().start_ns;
  t.span_end_ns = std::max(t.windows.back().end_ns, run_end_ns);
  return t;
}

double GpuTracing::traced_fraction() const {
  if (!windowed()) return 1.0;
  return span_ns == 0 ? 0.0 : static_cast<double>(traced_ns) / static_cast<double>(span_ns);
}

double GpuTracing::scale() const {
  if (!windowed()) return 1.0;
  return traced_ns == 0 ? 0.0 : static_cast<double>(span_ns) / static_cast<double>(traced_ns);
}

GpuTracing build_gpu_tracing(const std::vector<ProcessProfile>& processes) {
  GpuTracing out;
  for (const auto& p : processes) {
    auto& t = out.by_process.emplace_back(gpu_process_tracing(p.gpu, p.last_time_ns));
    out.processes += !p.gpu.empty() || t.windowed();
    if (!t.windowed()) continue;
    if (out.windowed_processes++ == 0) {
      out.duty_min = t.duty_min, out.duty_max = t.duty_max;
      out.period_min_ns = t.period_min_ns, out.period_max_ns = t.period_max_ns;
    }
    out.duty_min = std::min(out.duty_min, t.duty_min);
    out.duty_max = std::max(out.duty_max, t.duty_max);
    out.period_min_ns = std::min(out.period_min_ns, t.period_min_ns);
    out.period_max_ns = std::max(out.period_max_ns, t.period_max_ns);
    out.windows += t.recorded_windows;
    out.inferred_windows += t.inferred_windows;
    out.outside += t.outside;
    out.traced_ns += t.traced_ns;
    out.span_ns += t.span_ns();
  }
  return out;
}

}  // namespace cprof::report
