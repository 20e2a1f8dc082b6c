// Samples in code outside every file (report/profile/unnamed_code.h): only the innermost
// frame counts, and a process is flagged past both thresholds.
#include "report/profile/unnamed_code.h"

#include <gtest/gtest.h>

namespace cprof::report {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint32_t kUnknown = 0;  // location 0: outside every module
constexpr uint32_t kNamed = 1;    // a location in module 0

// One process whose stacks are given by location (innermost first), each with `samples`
// samples of 1 ms, and the symbols that place those locations.
struct Fixture {
  ProcessProfile p;
  SymbolizedProfiles s;

  Fixture() {
    s.table.location_module = {SymbolTable::kNoModule, 0};
    s.frame_locations.emplace_back();
  }
  void add(std::vector<uint32_t> locations, uint64_t samples) {
    std::vector<uint64_t> frames(locations.begin(), locations.end());  // the address is the location
    const size_t known = p.stacks.size();
    const uint32_t id = p.stacks.intern(frames);
    if (p.stacks.size() > known) {  // a new stack: its frames' locations, in the same order
      s.frame_locations[0].insert(s.frame_locations[0].end(), locations.begin(), locations.end());
    }
    p.counts.push_back({.thread = 0, .stack = id, .samples = samples, .weight_ns = samples * kMs});
    p.samples += samples;
    p.weight_ns += samples * kMs;
  }
  UnnamedCode find() const { return find_unnamed_code(p, s, 0); }
};

TEST(UnnamedCode, OnlyTheInnermostFrameCounts) {
  Fixture f;
  f.add({kUnknown, kNamed}, 30);  // JIT code called from a file's code: counted
  f.add({kNamed, kUnknown}, 50);  // a file's code called from JIT code: named where it ran
  f.add({}, 20);                  // no frames at all
  const auto u = f.find();
  EXPECT_EQ(u.samples, 30u);
  EXPECT_EQ(u.weight_ns, 30 * kMs);
  EXPECT_DOUBLE_EQ(u.share, 0.3);
  EXPECT_TRUE(u.flagged);
}

TEST(UnnamedCode, FlaggedFromAShareAndACount) {
  Fixture at_share;  // 5% of 200 samples: 10, both thresholds met
  at_share.add({kUnknown}, kUnnamedCodeMinSamples);
  at_share.add({kNamed}, 190);
  EXPECT_TRUE(at_share.find().flagged);

  Fixture under_share;  // 10 of 201 samples: just under 5%
  under_share.add({kUnknown}, kUnnamedCodeMinSamples);
  under_share.add({kNamed}, 191);
  EXPECT_FALSE(under_share.find().flagged);

  Fixture few;  // all of a short run, but fewer samples than a note needs
  few.add({kUnknown}, kUnnamedCodeMinSamples - 1);
  const auto u = few.find();
  EXPECT_DOUBLE_EQ(u.share, 1.0);
  EXPECT_FALSE(u.flagged);
}

TEST(UnnamedCode, ANamedProfileIsNotFlagged) {
  Fixture f;
  f.add({kNamed}, 1000);
  EXPECT_EQ(f.find().samples, 0u);
  EXPECT_FALSE(f.find().flagged);
  EXPECT_FALSE(find_unnamed_code(f.p, f.s, 1).flagged);  // no symbols for that process
}

// A module is flagged when most of its own samples are unnamed and they are a visible
// part of the profile: the same count and share as for code of no file.
TEST(UnnamedCode, AModuleMostlyUnnamedIsFlagged) {
  const auto row = [](const char* path, uint64_t self, uint64_t unnamed) {
    ModuleRow m;
    m.module = path;
    m.self = {.samples = self, .time_ns = self * kMs};
    m.unnamed = {.samples = unnamed, .time_ns = unnamed * kMs};
    return m;
  };
  const auto flagged = find_unnamed_modules({
      row("/usr/bin/app", 800, 0),
      row("/lib/libz.so.1", 100, 60),  // 60% of its own, 6% of all: flagged
      row("/lib/libm.so.6", 80, 39),   // under half of its own
      row("/lib/libc.so.6", 15, 15),   // all of its own, but 1.5% of all
      row("/lib/libtiny.so", 5, 5),
  });
  ASSERT_EQ(flagged.size(), 1u);
  EXPECT_EQ(flagged[0].module, "/lib/libz.so.1");
  EXPECT_EQ(flagged[0].unnamed.samples, 60u);
  EXPECT_EQ(flagged[0].self.samples, 100u);
  EXPECT_TRUE(flagged[0].package.empty());  // filled by build_report, from dpkg
}

}  // namespace
}  // namespace cprof::report
