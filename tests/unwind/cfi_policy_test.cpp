// The rent-or-buy rule for CfiTables (cfi_policy.h): build a module's table once the walks
// that had to go to libunwind without it have cost as much as parsing it would.
#include <gtest/gtest.h>

#include <cmath>

#include "sampler/unwind/cfi_policy.h"

namespace cprof::sampler::test {
namespace {

// The smallest number of hand-offs of `frames` frames each after which the rule builds.
uint64_t handoffs_to_build(uint64_t frames, uint64_t bytes) {
  uint64_t h = 0;
  while (!cfi_table_pays_off(CfiRent{h, h * frames}, bytes)) ++h;
  return h;
}

TEST(CfiPolicy, NoHandOffNeverBuilds) {
  EXPECT_FALSE(cfi_table_pays_off(CfiRent{}, 0));
  EXPECT_FALSE(cfi_table_pays_off(CfiRent{}, 1 << 20));
}

TEST(CfiPolicy, ModuleWithoutEhFrameIsBuiltAtItsFirstHandOff) {
  // Nothing to parse: "building" only records that there is no table.
  EXPECT_TRUE(cfi_table_pays_off(CfiRent{1, 0}, 0));
}

TEST(CfiPolicy, BuildsExactlyWhenTheRentReachesThePrice) {
  for (uint64_t bytes : {uint64_t{1} << 10, uint64_t{200} << 10, uint64_t{2300} << 10}) {
    for (uint64_t frames : {1u, 3u, 20u, 60u}) {
      const uint64_t h = handoffs_to_build(frames, bytes);
      ASSERT_GE(h, 1u);
      const CfiRent at{h, h * frames};
      const CfiRent before{h - 1, (h - 1) * frames};
      EXPECT_GE(cfi_rent_ns(at), cfi_build_ns(bytes)) << bytes << " " << frames;
      if (h > 1) {
        EXPECT_LT(cfi_rent_ns(before), cfi_build_ns(bytes)) << bytes << " " << frames;
      }
      // Ski rental's bound: what the rule pays (rent until it buys, then the price) is at
      // most twice the better choice in hindsight, whether the process then samples that
      // module forever (best: buy at once) or never again (best: that rent alone).
      const double paid = cfi_rent_ns(at) + cfi_build_ns(bytes);
      const double per_walk = cfi_rent_ns(CfiRent{1, frames});
      EXPECT_LE(paid, 2 * cfi_build_ns(bytes) + per_walk) << bytes << " " << frames;
      EXPECT_LE(paid, 2 * cfi_rent_ns(at) + per_walk) << bytes << " " << frames;
    }
  }
}

TEST(CfiPolicy, DeeperHandOffsPaySooner) {
  const uint64_t bytes = uint64_t{200} << 10;  // about libc's .eh_frame
  EXPECT_LT(handoffs_to_build(60, bytes), handoffs_to_build(3, bytes));
  EXPECT_LT(handoffs_to_build(3, bytes), handoffs_to_build(1, bytes));
}

TEST(CfiPolicy, ShortCompilerPassNeverBuildsALongRunDoes) {
  // cc1 at -O2 on a small file: ~70 ms of CPU, 35 samples at 500 Hz of ~25 frames each,
  // against a 2.3 MB .eh_frame: libunwind is far cheaper than the table.
  const uint64_t cc1 = uint64_t{2300} << 10;
  EXPECT_FALSE(cfi_table_pays_off(CfiRent{35, uint64_t{35} * 25}, cc1));
  // The same binary sampled for 2 minutes at 500 Hz: the table pays for itself.
  EXPECT_TRUE(cfi_table_pays_off(CfiRent{60000, uint64_t{60000} * 25}, cc1));
  // A small program's own table (~30 KB) after 2 s of samples 15 frames deep.
  EXPECT_TRUE(cfi_table_pays_off(CfiRent{1000, uint64_t{1000} * 15}, 30 << 10));
}

TEST(CfiPolicy, HugeCountsDoNotOverflow) {
  EXPECT_TRUE(cfi_table_pays_off(CfiRent{UINT64_MAX, UINT64_MAX}, UINT64_MAX / 2));
  EXPECT_FALSE(cfi_table_pays_off(CfiRent{1, 1}, UINT64_MAX));
}

}  // namespace
}  // namespace cprof::sampler::test
