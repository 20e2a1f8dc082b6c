#pragma once
// How busy a GPU was: the union of its kernels' execution intervals over its active span
// (first kernel start to last kernel end), and the idle gaps between them in a
// histogram with bucket bounds at 10, 20, 50, 100, 1000, 10000 and 100000 us. Kernels
// that overlap (several queues, concurrent kernels) count once: busy is the union, not
// the sum.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cprof::report {

inline constexpr std::array<uint64_t, 7> kIdleGapBoundsUs = {10, 20, 50, 100, 1000, 10000, 100000};
inline constexpr size_t kIdleGapBuckets = kIdleGapBoundsUs.size() + 1;

struct TimeInterval {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;  // >= start_ns
};

struct BusySummary {
  uint64_t span_start_ns = 0;  // earliest start
  uint64_t span_end_ns = 0;    // latest end
  uint64_t busy_ns = 0;        // length of the union of the intervals
  uint64_t gaps = 0;           // idle gaps inside the span (between merged intervals)
  // Bucket b holds the gaps of [bound[b-1], bound[b]) us; the first from 0, the last open.
  std::array<uint64_t, kIdleGapBuckets> gap_counts{};
  std::array<uint64_t, kIdleGapBuckets> gap_ns{};

  uint64_t span_ns() const { return span_end_ns - span_start_ns; }
  // busy / span; 0 for an empty span (no interval, or only zero-length ones).
  double busy_fraction() const;
};

// The bucket of an idle gap of gap_ns nanoseconds.
size_t idle_gap_bucket(uint64_t gap_ns);

// Sorts and merges the intervals (taken by value: the caller's order is kept).
BusySummary summarize_busy(std::vector<TimeInterval> intervals);

}  // namespace cprof::report
