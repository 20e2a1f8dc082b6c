#pragma once
// Mean, variance, min and max of a stream of values in one pass (Welford), and the exact
// merge of two such summaries (Chan, Golub and LeVeque 1979), so that partial summaries
// built in parallel -- per thread, per process, per run -- combine without keeping the
// values. The two-pass formula is the reference the tests hold this to. Used by the report
// (rows over threads, processes, runs) and by the causal runtime (timed regions).
// Signal-safety: every member is async-signal-safe (no allocation, no locks).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace cprof {

class RunningStats {
 public:
  void add(double x) {
    ++count_;
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (x - mean_);
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }

  // `n` copies of `x` at once: how the report adds the threads where a row has no samples.
  void add_repeated(double x, uint64_t n) {
    if (n == 0) return;
    RunningStats block;
    block.count_ = n;
    block.mean_ = x;
    block.min_ = block.max_ = x;
    merge(block);
  }

  // A summary read back from a record: count, mean, sample variance, min and max.
  static RunningStats from_summary(uint64_t count, double mean, double variance, double min,
                                   double max) {
    RunningStats s;
    if (count == 0) return s;
    s.count_ = count;
    s.mean_ = mean;
    s.m2_ = count > 1 ? variance * static_cast<double>(count - 1) : 0.0;
    s.min_ = min;
    s.max_ = max;
    return s;
  }

  // Chan's pairwise update: exact (up to rounding) for any split of the values.
  void merge(const RunningStats& other) {
    if (other.count_ == 0) return;
    if (count_ == 0) {
      *this = other;
      return;
    }
    const double na = static_cast<double>(count_);
    const double nb = static_cast<double>(other.count_);
    const double n = na + nb;
    const double delta = other.mean_ - mean_;
    mean_ += delta * nb / n;
    m2_ += other.m2_ + delta * delta * na * nb / n;
    count_ += other.count_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }

  uint64_t count() const { return count_; }
  double mean() const { return count_ ? mean_ : 0.0; }
  double min() const { return count_ ? min_ : 0.0; }
  double max() const { return count_ ? max_ : 0.0; }
  // Sample variance (n - 1 in the denominator); 0 for fewer than two values.
  double variance() const { return count_ > 1 ? m2_ / static_cast<double>(count_ - 1) : 0.0; }
  // Population variance (n in the denominator).
  double population_variance() const { return count_ ? m2_ / static_cast<double>(count_) : 0.0; }
  double stddev() const { return std::sqrt(variance()); }
  double sum() const { return mean() * static_cast<double>(count_); }

 private:
  uint64_t count_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;  // sum of squared deviations from the mean
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

}  // namespace cprof
