// Welford's one-pass statistics and Chan's merge agree with the two-pass formulas, for
// any way of splitting the values -- the property the report relies on when it merges
// per-thread, per-process and per-run summaries built in parallel.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "common/running_stats.h"

namespace cprof::report {
namespace {

struct TwoPass {
  double mean = 0, variance = 0, min = 0, max = 0;
};

TwoPass two_pass(const std::vector<double>& v) {
  TwoPass r;
  r.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - r.mean) * (x - r.mean);
  r.variance = v.size() > 1 ? ss / static_cast<double>(v.size() - 1) : 0.0;
  r.min = *std::min_element(v.begin(), v.end());
  r.max = *std::max_element(v.begin(), v.end());
  return r;
}

void expect_matches(const RunningStats& s, const std::vector<double>& v) {
  const auto ref = two_pass(v);
  ASSERT_EQ(s.count(), v.size());
  EXPECT_NEAR(s.mean(), ref.mean, 1e-9 * std::max(1.0, std::abs(ref.mean)));
  EXPECT_NEAR(s.variance(), ref.variance, 1e-9 * std::max(1.0, ref.variance));
  EXPECT_EQ(s.min(), ref.min);
  EXPECT_EQ(s.max(), ref.max);
}

std::vector<double> random_values(size_t n, uint32_t seed, double offset) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> dist(0.0, 1.5);
  std::vector<double> v(n);
  for (auto& x : v) x = offset + dist(rng);
  return v;
}

TEST(RunningStats, EmptyIsAllZero) {
  RunningStats s;
  EXPECT_EQ(s.count(), 0u);
  EXPECT_EQ(s.mean(), 0.0);
  EXPECT_EQ(s.stddev(), 0.0);
  EXPECT_EQ(s.min(), 0.0);
  EXPECT_EQ(s.max(), 0.0);
}

TEST(RunningStats, OneValueHasNoSpread) {
  RunningStats s;
  s.add(42.0);
  EXPECT_EQ(s.mean(), 42.0);
  EXPECT_EQ(s.variance(), 0.0);
  EXPECT_EQ(s.min(), 42.0);
  EXPECT_EQ(s.max(), 42.0);
}

TEST(RunningStats, KnownSmallSet) {
  RunningStats s;
  for (double x : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) s.add(x);
  EXPECT_DOUBLE_EQ(s.mean(), 5.0);
  EXPECT_DOUBLE_EQ(s.population_variance(), 4.0);
  EXPECT_DOUBLE_EQ(s.variance(), 32.0 / 7.0);
  EXPECT_DOUBLE_EQ(s.sum(), 40.0);
}

TEST(RunningStats, WelfordMatchesTwoPass) {
  const auto v = random_values(10'000, 1, 0.0);
  RunningStats s;
  for (double x : v) s.add(x);
  expect_matches(s, v);
}

TEST(RunningStats, StableWithALargeOffset) {
  // The naive sum-of-squares formula loses every digit here; Welford must not.
  const auto v = random_values(1'000, 2, 1e9);
  RunningStats s;
  for (double x : v) s.add(x);
  expect_matches(s, v);
}

TEST(RunningStats, ChanMergeMatchesTwoPassForEverySplit) {
  const auto v = random_values(257, 3, 10.0);
  for (size_t split : {size_t{0}, size_t{1}, size_t{2}, size_t{100}, size_t{256}, size_t{257}}) {
    RunningStats a, b;
    for (size_t i = 0; i < v.size(); ++i) (i < split ? a : b).add(v[i]);
    a.merge(b);
    expect_matches(a, v);
  }
}

TEST(RunningStats, ChanMergeOfManyUnevenParts) {
  const auto v = random_values(5'000, 4, 0.0);
  std::mt19937 rng(5);
  std::vector<RunningStats> parts(37);
  for (double x : v) parts[rng() % parts.size()].add(x);
  // Merge as a tree, the way parallel reductions do.
  while (parts.size() > 1) {
    std::vector<RunningStats> next;
    for (size_t i = 0; i < parts.size(); i += 2) {
      if (i + 1 < parts.size()) parts[i].merge(parts[i + 1]);
      next.push_back(parts[i]);
    }
    parts = std::move(next);
  }
  expect_matches(parts[0], v);
}

TEST(RunningStats, AddRepeatedEqualsAddingEachCopy) {
  std::vector<double> v = {3.0, 8.0, 1.0};
  RunningStats s;
  for (double x : v) s.add(x);
  s.add_repeated(0.0, 5);
  s.add_repeated(7.0, 0);
  v.insert(v.end(), 5, 0.0);
  expect_matches(s, v);
}

}  // namespace
}  // namespace cprof::report
