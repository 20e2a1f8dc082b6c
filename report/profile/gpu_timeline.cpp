#include "report/profile/gpu_timeline.h"

#include <algorithm>

namespace cprof::report {
namespace {

void add_gap(BusySummary& s, uint64_t gap) {
  const size_t b = idle_gap_bucket(gap);
  ++s.gaps;
  ++s.gap_counts[b];
  s.gap_ns[b] += gap;
}

}  // namespace

double BusySummary::busy_fraction() const {
  return observed_ns == 0 ? 0.0 : static_cast<double>(busy_ns) / static_cast<double>(observed_ns);
}

size_t idle_gap_bucket(uint64_t gap_ns) {
  size_t b = 0;
  while (b < kIdleGapBoundsUs.size() && gap_ns >= kIdleGapBoundsUs[b] * 1000) ++b;
  return b;
}

std::vector<TimeInterval> merge_intervals(std::vector<TimeInterval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const TimeInterval& a, const TimeInterval& b) { return a.start_ns < b.start_ns; });
  std::vector<TimeInterval> out;
  for (const auto& x : intervals) {
    if (!out.empty() && x.start_ns <= out.back().end_ns) {  // overlaps or touches
      out.back().end_ns = std::max(out.back().end_ns, x.end_ns);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

std::vector<TimeInterval> intersect_intervals(const std::vector<TimeInterval>& a,
                                              const std::vector<TimeInterval>& b) {
  std::vector<TimeInterval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t start = std::max(a[i].start_ns, b[j].start_ns);
    const uint64_t end = std::min(a[i].end_ns, b[j].end_ns);
    if (start < end) out.push_back({start, end});
    (a[i].end_ns < b[j].end_ns ? i : j)++;
  }
  return out;
}

BusySummary summarize_busy(std::vector<TimeInterval> intervals) {
  BusySummary s;
  if (intervals.empty()) return s;
  const auto busy = merge_intervals(std::move(intervals));
  s.span_start_ns = busy.front().start_ns;
  s.span_end_ns = busy.back().end_ns;
  s.observed_ns = s.span_end_ns - s.span_start_ns;
  for (size_t i = 0; i < busy.size(); ++i) {
    s.busy_ns += busy[i].length_ns();
    if (i > 0) add_gap(s, busy[i].start_ns - busy[i - 1].end_ns);
  }
  return s;
}

BusySummary summarize_busy_in_windows(std::vector<TimeInterval> intervals,
                                      std::vector<TimeInterval> windows) {
  BusySummary s;
  s.in_windows = true;
  windows = merge_intervals(std::move(windows));
  if (windows.empty()) return s;
  s.span_start_ns = windows.front().start_ns;
  s.span_end_ns = windows.back().end_ns;
  s.windows = windows.size();
  // Clipping the union to a window gives the union of the clipped intervals, and the gaps
  // between its stretches there are the gaps between the clipped ones: merge once.
  const auto busy = merge_intervals(std::move(intervals));
  size_t first = 0;  // the first stretch that may reach the current window
  for (const auto& w : windows) {
    s.observed_ns += w.length_ns();
    while (first < busy.size() && busy[first].end_ns < w.start_ns) ++first;
    bool any = false;
    uint64_t last_end = 0;
    // A stretch that reaches past this window is looked at again for the next one.
    for (size_t i = first; i < busy.size() && busy[i].start_ns <= w.end_ns; ++i) {
      const uint64_t start = std::max(busy[i].start_ns, w.start_ns);
      const uint64_t end = std::min(busy[i].end_ns, w.end_ns);
      s.busy_ns += end - start;
      if (any) add_gap(s, start - last_end);
      any = true;
      last_end = end;
    }
  }
  return s;
}

}  // namespace cprof::report
