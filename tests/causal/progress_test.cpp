// Progress points: counters, Coz's ABI, and the timed-region summary.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

#include "causal/line_progress_name.h"
#include "causal/progress_registry.h"

namespace cprof::causal {
namespace {

// coz.h's counter as a program built with it sees it.
struct coz_counter_t {
  size_t count;
  size_t backoff;
};

// A --progress point's name says where it came from, not how it was counted, and the
// names of results written before (" (breakpoint)") still give the line back.
TEST(Progress, ALineProgressPointIsNamedByItsOptionAndReadBackFromEitherName) {
  EXPECT_EQ(line_progress_name("pbzip2.cpp:1734"), "pbzip2.cpp:1734 (--progress)");
  EXPECT_EQ(line_progress_spec("pbzip2.cpp:1734 (--progress)"), "pbzip2.cpp:1734");
  EXPECT_EQ(line_progress_spec("pbzip2.cpp:1734 (breakpoint)"), "pbzip2.cpp:1734");
  EXPECT_EQ(line_progress_spec("pbzip2.cpp:1734"), "pbzip2.cpp:1734");
  EXPECT_EQ(line_progress_spec("a (breakpoint) b.c:3"), "a (breakpoint) b.c:3");
}

TEST(Progress, CozAbiCountsIntoTheNamedPoint) {
  ProgressRegistry reg;
  auto* tp = reinterpret_cast<coz_counter_t*>(reg.coz_counter(kCozThroughput, "requests"));
  ASSERT_NE(tp, nullptr);
  // What COZ_PROGRESS_NAMED expands to.
  __atomic_add_fetch(&tp->count, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&tp->count, 1, __ATOMIC_RELAXED);
  auto* b = reinterpret_cast<coz_counter_t*>(reg.coz_counter(kCozBegin, "txn"));
  auto* e = reinterpret_cast<coz_counter_t*>(reg.coz_counter(kCozEnd, "txn"));
  ASSERT_NE(b, e);
  __atomic_add_fetch(&b->count, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&b->count, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&e->count, 1, __ATOMIC_RELAXED);
  ASSERT_EQ(reg.size(), 2u);
  EXPECT_EQ(reg.at(0)->counts().visits, 2u);
  EXPECT_EQ(reg.at(0)->kind(), ProgressKind::throughput);
  EXPECT_EQ(reg.at(0)->source(), ProgressSource::coz);
  EXPECT_EQ(reg.at(1)->kind(), ProgressKind::latency);
  EXPECT_EQ(reg.at(1)->counts().begin, 2u);
  EXPECT_EQ(reg.at(1)->counts().end, 1u);
  EXPECT_EQ(reg.coz_counter(kCozThroughput, "requests"), reg.at(0)->coz_counter(kCozThroughput));
  EXPECT_EQ(reg.coz_counter(7, "requests"), nullptr);
  EXPECT_EQ(reg.coz_counter(kCozThroughput, nullptr), nullptr);
}

TEST(Progress, FindOrAddKeepsOnePointPerName) {
  ProgressRegistry reg;
  auto* p = reg.find_or_add("x", ProgressKind::throughput, ProgressSource::breakpoint, "a.cpp", 3);
  EXPECT_EQ(reg.find_or_add("x", ProgressKind::throughput, ProgressSource::api), p);
  EXPECT_EQ(p->file(), "a.cpp");
  EXPECT_EQ(p->line(), 3u);
  EXPECT_EQ(p->source(), ProgressSource::breakpoint);
  p->visit();
  p->visit(4);
  EXPECT_EQ(reg.counts().at(0).visits, 5u);
}

TEST(Progress, RegistryRefusesPastItsCapacity) {
  ProgressRegistry reg;
  for (size_t i = 0; i < ProgressRegistry::kCapacity; ++i) {
    ASSERT_NE(reg.find_or_add("p" + std::to_string(i), ProgressKind::throughput,
                              ProgressSource::api), nullptr);
  }
  EXPECT_EQ(reg.find_or_add("one more", ProgressKind::throughput, ProgressSource::api), nullptr);
}

TEST(RegionStats, WelfordMatchesTheTwoPassFormulas) {
  RegionStats s;
  const std::vector<uint64_t> xs = {1000000007, 1000000003, 1000000011, 1000000001, 1000000013};
  for (auto x : xs) s.add(static_cast<double>(x));
  double mean = 0;
  for (auto x : xs) mean += static_cast<double>(x);
  mean /= static_cast<double>(xs.size());
  double ss = 0;
  for (auto x : xs) ss += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
  EXPECT_EQ(s.count(), 5u);
  EXPECT_DOUBLE_EQ(s.mean(), mean);
  EXPECT_NEAR(s.stddev(), std::sqrt(ss / 4), 1e-6);
  EXPECT_EQ(s.min(), 1000000001.0);
  EXPECT_EQ(s.max(), 1000000013.0);
}

TEST(RegionStats, MergeEqualsAddingEverything) {
  RegionStats all, left, right;
  for (uint64_t x = 1; x <= 100; ++x) {
    all.add(static_cast<double>(x * x));
    (x % 3 == 0 ? left : right).add(static_cast<double>(x * x));
  }
  left.merge(right);
  EXPECT_EQ(left.count(), all.count());
  EXPECT_NEAR(left.mean(), all.mean(), 1e-9);
  EXPECT_NEAR(left.variance(), all.variance(), 1e-6);
  EXPECT_EQ(left.min(), 1.0);
  EXPECT_EQ(left.max(), 10000.0);
  RegionStats empty;
  empty.merge(all);
  EXPECT_EQ(empty.count(), 100u);
  EXPECT_EQ(RegionStats{}.stddev(), 0.0);
}

TEST(Progress, DurationsFromManyThreadsAreAllSummarized) {
  ProgressRegistry reg;
  auto* p = reg.find_or_add("region", ProgressKind::latency, ProgressSource::api);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([p] {
      for (uint64_t i = 1; i <= 10000; ++i) {
        p->begin();
        p->record_duration(i);
        p->end();
      }
    });
  }
  for (auto& t : ts) t.join();
  const RegionStats r = p->region();
  EXPECT_EQ(r.count() + p->dropped_durations(), 40000u);
  EXPECT_EQ(p->dropped_durations(), 0u);  // 8 stripes, 4 threads
  EXPECT_NEAR(r.mean(), 5000.5, 1e-6);
  EXPECT_EQ(r.min(), 1.0);
  EXPECT_EQ(r.max(), 10000.0);
  EXPECT_EQ(p->counts().begin, 40000u);
  EXPECT_EQ(p->counts().end, 40000u);
}

}  // namespace
}  // namespace cprof::causal
