#include "report/profile/gpu_timeline.h"

#include <algorithm>

namespace cprof::report {

double BusySummary::busy_fraction() const {
  return span_ns() == 0 ? 0.0 : static_cast<double>(busy_ns) / static_cast<double>(span_ns());
}

size_t idle_gap_bucket(uint64_t gap_ns) {
  size_t b = 0;
  while (b < kIdleGapBoundsUs.size() && gap_ns >= kIdleGapBoundsUs[b] * 1000) ++b;
  return b;
}

BusySummary summarize_busy(std::vector<TimeInterval> intervals) {
  BusySummary s;
  if (intervals.empty()) return s;
  std::sort(intervals.begin(), intervals.end(),
            [](const TimeInterval& a, const TimeInterval& b) { return a.start_ns < b.start_ns; });
  s.span_start_ns = intervals.front().start_ns;
  uint64_t open_start = intervals.front().start_ns;
  uint64_t open_end = intervals.front().end_ns;
  for (size_t i = 1; i < intervals.size(); ++i) {
    const auto& x = intervals[i];
    if (x.start_ns <= open_end) {  // overlaps or touches: one busy stretch
      open_end = std::max(open_end, x.end_ns);
      continue;
    }
    s.busy_ns += open_end - open_start;
    const uint64_t gap = x.start_ns - open_end;
    const size_t b = idle_gap_bucket(gap);
    ++s.gaps;
    ++s.gap_counts[b];
    s.gap_ns[b] += gap;
    open_start = x.start_ns;
    open_end = x.end_ns;
  }
  s.busy_ns += open_end - open_start;
  s.span_end_ns = open_end;
  return s;
}

}  // namespace cprof::report
