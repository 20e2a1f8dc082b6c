// Code moved out of the program's text (a --progress trampoline): a PC in it stands for
// the original code at the row's offset, with the stack pointer the program had there
// (sampler/runtime/moved_code.h). The table is process-wide and only grows, so each test
// uses addresses of its own.
#include "sampler/runtime/moved_code.h"

#include <gtest/gtest.h>

#include <vector>

namespace cprof::sampler {
namespace {

TEST(MovedCode, APcInMovedCodeStandsForTheOriginalAtItsRow) {
  const std::vector<MovedCodeRow> rows{
      {0, 0, 0}, {5, 0, -128}, {6, 0, -136}, {23, 0, 0}, {27, 4, 0}};
  ASSERT_TRUE(register_moved_code(0x10000, 0x10020, 0x400000, rows));
  const uint64_t sp = 0x7ffd0000;
  const auto at = [&](uint64_t pc) { return moved_code_origin(pc, sp); };
  ASSERT_TRUE(at(0x10000));
  EXPECT_EQ(at(0x10000)->pc, 0x400000u);
  EXPECT_EQ(at(0x10000)->sp, sp);
  EXPECT_EQ(at(0x10005)->sp, sp + 128);  // the red zone stepped over
  EXPECT_EQ(at(0x1000d)->sp, sp + 136);  // and the flags pushed
  EXPECT_EQ(at(0x1000d)->pc, 0x400000u);
  EXPECT_EQ(at(0x10017)->sp, sp);
  EXPECT_EQ(at(0x1001b)->pc, 0x400004u);
  EXPECT_EQ(at(0x1001f)->pc, 0x400004u);
  EXPECT_FALSE(at(0x10020));  // the end is not in it
  EXPECT_FALSE(at(0xffff));
}

TEST(MovedCode, RowsThatDoNotStartAtTheBeginningAreRefused) {
  EXPECT_FALSE(
      register_moved_code(0x20000, 0x20010, 0x500000, std::vector<MovedCodeRow>{{4, 0, 0}}));
  EXPECT_FALSE(register_moved_code(0x20000, 0x20010, 0x500000, {}));
  EXPECT_FALSE(
      register_moved_code(0x20010, 0x20000, 0x500000, std::vector<MovedCodeRow>{{0, 0, 0}}));
  EXPECT_FALSE(moved_code_origin(0x20004, 0x1000));
}

}  // namespace
}  // namespace cprof::sampler
