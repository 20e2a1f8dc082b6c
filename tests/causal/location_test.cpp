// Matching sampled addresses and stacks against locations.
#include "causal/location.h"

#include <gtest/gtest.h>

#include <set>

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

}  // namespace
}  // namespace cprof::causal
