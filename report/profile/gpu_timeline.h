#pragma once
// How busy a GPU was: the union of its kernels' execution intervals over its active span
// (first kernel start to last kernel end), and the idle gaps between them in a
// histogram with bucket bounds at 10, 20, 50, 100, 1000, 10000 and 100000 us. Kernels
// that overlap (several queues, concurrent kernels) count once: busy is the union, not
// the sum.
//
// When the GPU hooks traced only windows of the run (`--gpu-duty`), busy is measured
// inside the windows only (summarize_busy_in_windows): outside them the hooks saw
// nothing, so an untraced stretch is neither busy nor idle.

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
  uint64_t length_ns() const { return end_ns - start_ns; }
};

struct BusySummary {
  uint64_t span_start_ns = 0;  // earliest start (in windows: the first window's start)
  uint64_t span_end_ns = 0;    // latest end (in windows: the last window's end)
  // The time busy is measured over: span_end - span_start, or in windows their summed
  // length.
  uint64_t observed_ns = 0;
  bool in_windows = false;     // measured inside trace windows (summarize_busy_in_windows)
  uint64_t windows = 0;        // ... how many (after merging)
  uint64_t busy_ns = 0;        // length of the union of the intervals (inside the windows)
  uint64_t gaps = 0;           // idle gaps inside the span (between merged intervals)
  // Bucket b holds the gaps of [bound[b-1], bound[b]) us; the first from 0, the last open.
  std::array<uint64_t, kIdleGapBuckets> gap_counts{};
  std::array<uint64_t, kIdleGapBuckets> gap_ns{};

  uint64_t span_ns() const { return observed_ns; }
  // busy / observed time; 0 for an empty span (no interval, or only zero-length ones).
  double busy_fraction() const;
};

// The bucket of an idle gap of gap_ns nanoseconds.
size_t idle_gap_bucket(uint64_t gap_ns);

// Sorts and merges the intervals (taken by value: the caller's order is kept).
BusySummary summarize_busy(std::vector<TimeInterval> intervals);

// Busy time and idle gaps inside `windows` only. Each interval is clipped to every window
// it meets (a kernel straddling a window's edge counts its part inside; one outside every
// window counts nothing); busy is the summed length of the union inside the windows and
// the observed time their summed length. A gap is counted only between two busy stretches
// of one window: the idle time from a window's start to its first kernel, or from its last
// kernel to its end, is cut by the window (it may have begun or gone on while nothing was
// traced) and is left out of the histogram. Windows are sorted and merged first
// (overlapping or touching ones are one window). No windows: nothing observed (in_windows
// set, the rest 0).
BusySummary summarize_busy_in_windows(std::vector<TimeInterval> intervals,
                                      std::vector<TimeInterval> windows);

// Sorted by start, overlapping and touching intervals merged into one.
std::vector<TimeInterval> merge_intervals(std::vector<TimeInterval> intervals);

// The time covered by both a and b (each sorted and merged: merge_intervals).
std::vector<TimeInterval> intersect_intervals(const std::vector<TimeInterval>& a,
                                              const std::vector<TimeInterval>& b);

}  // namespace cprof::report
