// The ring of region spans: the cap, drops when full, order, and many producers.
#include "causal/region_spans.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

namespace cprof::causal {
namespace {

SpanEntry span(uint64_t i) { return SpanEntry{1, 7, 1000 * i, 1000 * i + 10}; }

TEST(RegionSpans, KeepsCallsInOrderUpToTheCap) {
  RegionSpanRing ring(5, 16);
  for (uint64_t i = 0; i < 5; ++i) EXPECT_EQ(ring.push(span(i)), RegionSpanRing::Push::recorded);
  // Past the cap: not recorded, and the ring is not touched.
  for (uint64_t i = 5; i < 9; ++i) EXPECT_EQ(ring.push(span(i)), RegionSpanRing::Push::over_cap);
  EXPECT_EQ(ring.tickets(), 5u);
  EXPECT_EQ(ring.recorded(), 5u);
  EXPECT_EQ(ring.dropped_full(), 0u);
  SpanEntry s;
  for (uint64_t i = 0; i < 5; ++i) {
    ASSERT_TRUE(ring.pop(s));
    EXPECT_EQ(s.begin_ns, 1000 * i);
    EXPECT_EQ(s.end_ns, 1000 * i + 10);
  }
  EXPECT_FALSE(ring.pop(s));
}

TEST(RegionSpans, FullRingDropsAndCountsNeverWaits) {
  RegionSpanRing ring(100, 4);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(ring.push(span(i)), RegionSpanRing::Push::recorded);
  EXPECT_EQ(ring.push(span(4)), RegionSpanRing::Push::full);
  EXPECT_EQ(ring.push(span(5)), RegionSpanRing::Push::full);
  EXPECT_EQ(ring.dropped_full(), 2u);
  EXPECT_EQ(ring.tickets(), 6u);  // a dropped call used its ticket: the cap bounds calls tried
  EXPECT_EQ(ring.recorded(), 4u);
  // Draining frees the slots for the next lap.
  SpanEntry s;
  ASSERT_TRUE(ring.pop(s));
  EXPECT_EQ(s.begin_ns, 0u);
  EXPECT_EQ(ring.push(span(6)), RegionSpanRing::Push::recorded);
  std::vector<uint64_t> begins;
  while (ring.pop(s)) begins.push_back(s.begin_ns);
  EXPECT_EQ(begins, (std::vector<uint64_t>{1000, 2000, 3000, 6000}));
  EXPECT_EQ(ring.recorded(), 5u);
}

TEST(RegionSpans, CapZeroRecordsNothing) {
  RegionSpanRing ring(0, 4);
  EXPECT_EQ(ring.push(span(0)), RegionSpanRing::Push::over_cap);
  SpanEntry s;
  EXPECT_FALSE(ring.pop(s));
  EXPECT_EQ(ring.tickets(), 0u);
}

// Several producers and the consumer at once: every recorded span comes out exactly once,
// and recorded + full + over the cap accounts for every call.
TEST(RegionSpans, ManyProducersOneConsumer) {
  constexpr int kThreads = 4;
  constexpr uint64_t kPerThread = 50000;
  constexpr uint64_t kCap = 150000;
  RegionSpanRing ring(kCap, 256);
  std::atomic<int> running{kThreads};
  std::atomic<uint64_t> recorded{0}, full{0}, over{0};
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      for (uint64_t i = 0; i < kPerThread; ++i) {
        switch (ring.push(SpanEntry{static_cast<uint32_t>(t), t, i, i + 1})) {
          case RegionSpanRing::Push::recorded: ++recorded; break;
          case RegionSpanRing::Push::full: ++full; break;
          case RegionSpanRing::Push::over_cap: ++over; break;
        }
      }
      --running;
    });
  }
  std::vector<std::set<uint64_t>> seen(kThreads);
  uint64_t popped = 0;
  SpanEntry s;
  for (;;) {
    const bool done = running.load() == 0;
    while (ring.pop(s)) {
      ASSERT_LT(s.point_id, static_cast<uint32_t>(kThreads));
      EXPECT_EQ(s.tid, static_cast<int32_t>(s.point_id));
      EXPECT_EQ(s.end_ns, s.begin_ns + 1);
      EXPECT_TRUE(seen[s.point_id].insert(s.begin_ns).second) << "twice: " << s.begin_ns;
      ++popped;
    }
    if (done) break;
    std::this_thread::yield();
  }
  for (auto& p : producers) p.join();
  while (ring.pop(s)) ++popped;
  EXPECT_EQ(popped, recorded.load());
  EXPECT_EQ(recorded + full + over, kThreads * kPerThread);
  EXPECT_EQ(recorded + full, kCap);
  EXPECT_EQ(ring.recorded(), recorded.load());
  EXPECT_EQ(ring.dropped_full(), full.load());
}

}  // namespace
}  // namespace cprof::causal
