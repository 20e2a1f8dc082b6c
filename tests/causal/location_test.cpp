// Matching sampled addresses and stacks against locations.
#include "causal/location.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace cprof::causal {
namespace {

TEST(Location, NormalizeSortsAndMergesRanges) {
  Location l;
  l.ranges = {{0x300, 0x310}, {0x100, 0x120}, {0x110, 0x130}, {0x200, 0x200}};
  l.normalize();
  ASSERT_EQ(l.ranges.size(), 2u);
  EXPECT_EQ(l.ranges[0].start, 0x100u);
  EXPECT_EQ(l.ranges[0].end, 0x130u);
  EXPECT_TRUE(l.contains(0x100));
  EXPECT_TRUE(l.contains(0x12f));
  EXPECT_FALSE(l.contains(0x130));
  EXPECT_FALSE(l.contains(0xff));
  EXPECT_TRUE(l.contains(0x305));
  EXPECT_FALSE(l.contains(0x200));
}

// A return address is matched at address - 1: the call instruction that ends a line's
// range returns to the first byte of the next line.
TEST(Location, ReturnAddressesMatchTheirCallInstruction) {
  Location l;
  l.ranges = {{0x100, 0x110}};
  const uint64_t pc_after_call[] = {0x500, 0x110};
  EXPECT_TRUE(stack_hits(l, pc_after_call));
  const uint64_t pc_at_end[] = {0x110};
  EXPECT_FALSE(stack_hits(l, pc_at_end));  // frames[0] is the PC itself
  const uint64_t elsewhere[] = {0x500, 0x600, 0x101};
  EXPECT_TRUE(stack_hits(l, elsewhere));
  EXPECT_FALSE(stack_hits(l, std::span<const uint64_t>{}));
}

TEST(LocationTable, FindsTheFirstAddedLocationWhereTheyOverlap) {
  LocationTable t;
  const uint32_t line = t.add("a.cpp:10", {{0x120, 0x130}});
  const uint32_t fn = t.add("f", {{0x100, 0x200}});
  t.finish();
  EXPECT_EQ(t.find(0x125)->id, line);
  EXPECT_EQ(t.find(0x100)->id, fn);
  EXPECT_EQ(t.find(0x130)->id, fn);
  EXPECT_EQ(t.find(0x1ff)->id, fn);
  EXPECT_EQ(t.find(0x200), nullptr);
  EXPECT_EQ(t.find(0x50), nullptr);
  EXPECT_EQ(t.at(fn).name, "f");
  const uint64_t stack[] = {0x900, 0x126, 0x150};
  EXPECT_EQ(t.first_in_stack(stack)->id, line);
}

// A library the program loads later (dlopen): its location holds no address until the
// library is attached at its load bias, and none again after a dlclose; attached again
// at another bias (loaded elsewhere), it is refused and stays out.
TEST(LocationTable, ALibraryLoadedLaterHoldsItsAddressesOnlyWhileLoaded) {
  LocationTable t;
  const uint32_t main_line = t.add("main.c:3", {{0x100, 0x110}});
  const uint32_t later = t.add_unloaded("plugin.c:7", {{0x40, 0x50}});
  t.finish();
  EXPECT_TRUE(t.is_loaded(main_line));
  EXPECT_FALSE(t.is_loaded(later));
  EXPECT_EQ(t.find(0x45), nullptr);  // the file's address, not a run-time one
  EXPECT_EQ(t.find(0x7000045), nullptr);
  EXPECT_FALSE(t.at(later).contains(0x45));

  ASSERT_TRUE(t.attach(later, 0x7000000));
  EXPECT_EQ(t.find(0x7000045), nullptr);  // published with the next index only
  t.publish();
  ASSERT_NE(t.find(0x7000045), nullptr);
  EXPECT_EQ(t.find(0x7000045)->id, later);
  EXPECT_TRUE(t.at(later).contains(0x7000045));
  const uint64_t stack[] = {0x900, 0x7000041};
  EXPECT_EQ(t.first_in_stack(stack)->id, later);
  EXPECT_EQ(t.find(0x105)->id, main_line);

  t.detach(later);
  t.publish();
  EXPECT_FALSE(t.is_loaded(later));
  EXPECT_EQ(t.find(0x7000045), nullptr);
  EXPECT_FALSE(t.at(later).contains(0x7000045));

  EXPECT_FALSE(t.attach(later, 0x9000000));  // loaded again elsewhere
  EXPECT_FALSE(t.is_loaded(later));
  ASSERT_TRUE(t.attach(later, 0x7000000));  // or at the same place
  t.publish();
  EXPECT_EQ(t.find(0x700004f)->id, later);
}

// A dlopen attaches a library's locations on one thread while signal handlers look up
// addresses on others: a lookup sees the index before or after, never a torn one (run
// under TSan by scripts/sanitizers.sh).
TEST(LocationTable, LookupsGoOnWhileALibraryIsAttachedAndDetached) {
  LocationTable t;
  t.add("main.c:3", {{0x100, 0x110}});
  const uint32_t later = t.add_unloaded("plugin.c:7", {{0x40, 0x50}});
  t.finish();
  std::atomic<bool> done{false};
  std::atomic<uint64_t> found_later{0};
  std::thread reader([&] {
    while (!done.load(std::memory_order_relaxed)) {
      const Location* l = t.find(0x7000045);
      if (l != nullptr && l->contains(0x7000045)) found_later.fetch_add(1);
      ASSERT_NE(t.find(0x105), nullptr);
    }
  });
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(t.attach(later, 0x7000000));
    t.publish();
    t.detach(later);
    t.publish();
  }
  done.store(true);
  reader.join();
  ASSERT_TRUE(t.attach(later, 0x7000000));
  t.publish();
  EXPECT_EQ(t.find(0x7000045)->id, later);
}

// Many overlapping ranges over a small address space: every address belongs to the first
// location added that holds it, as a byte-by-byte scan says.
TEST(LocationTable, CarvingMatchesAScanOfEveryAddress) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint64_t> at(0, 999);
  std::uniform_int_distribution<uint64_t> length(1, 40);
  std::uniform_int_distribution<int> count(1, 4);
  LocationTable t;
  std::vector<std::vector<AddressRange>> added;
  for (int id = 0; id < 300; ++id) {
    std::vector<AddressRange> ranges;
    for (int k = count(rng); k > 0; --k) {
      const uint64_t start = at(rng);
      ranges.push_back(AddressRange{start, start + length(rng)});
    }
    added.push_back(ranges);
    t.add("l" + std::to_string(id), ranges);
  }
  t.finish();
  for (uint64_t a = 0; a < 1100; ++a) {
    const Location* found = t.find(a);
    int expected = -1;
    for (size_t id = 0; id < added.size() && expected < 0; ++id) {
      for (const auto& r : added[id]) {
        if (a >= r.start && a < r.end) expected = static_cast<int>(id);
      }
    }
    if (expected < 0) {
      EXPECT_EQ(found, nullptr) << a;
    } else {
      ASSERT_NE(found, nullptr) << a;
      EXPECT_EQ(found->id, static_cast<uint32_t>(expected)) << a;
    }
  }
}

TEST(RecentLocations, RingKeepsTheLatestIds) {
  RecentLocations r;
  EXPECT_TRUE(r.snapshot().empty());
  for (uint32_t i = 0; i < RecentLocations::kSlots + 10; ++i) r.note(i);
  const auto ids = r.snapshot();
  ASSERT_EQ(ids.size(), RecentLocations::kSlots);
  const std::set<uint32_t> set(ids.begin(), ids.end());
  EXPECT_EQ(set.count(0), 0u);  // overwritten
  EXPECT_EQ(set.count(RecentLocations::kSlots + 9), 1u);
  r.clear();
  EXPECT_TRUE(r.snapshot().empty());
}

TEST(LocationTally, CountsPerIdAndIgnoresIdsOutOfRange) {
  LocationTally tally(3);
  tally.add(0);
  tally.add(2);
  tally.add(2);
  tally.add(7);  // not a location of the table
  EXPECT_EQ(tally.counts(), (std::vector<uint64_t>{1, 0, 2}));
  EXPECT_EQ(tally.count(2), 2u);
  EXPECT_EQ(tally.count(9), 0u);
}

// End-to-end automatic selection: a location is drawn in proportion to its samples, the
// same one for the same seed (the two runs of a pair), never one without samples.
TEST(DrawByCount, FollowsTheCountsAndTheSeed) {
  const std::vector<uint64_t> counts = {0, 700, 0, 200, 100};
  std::vector<int> drawn(counts.size(), 0);
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const auto id = draw_by_count(counts, seed);
    ASSERT_TRUE(id.has_value());
    ASSERT_LT(*id, counts.size());
    ++drawn[*id];
    EXPECT_EQ(draw_by_count(counts, seed), id);
  }
  EXPECT_EQ(drawn[0], 0);
  EXPECT_EQ(drawn[2], 0);
  EXPECT_NEAR(drawn[1], 1400, 100);
  EXPECT_NEAR(drawn[3], 400, 80);
  EXPECT_NEAR(drawn[4], 200, 60);
  EXPECT_FALSE(draw_by_count(std::vector<uint64_t>{0, 0}, 1).has_value());
  EXPECT_FALSE(draw_by_count({}, 1).has_value());
}

}  // namespace
}  // namespace cprof::causal
