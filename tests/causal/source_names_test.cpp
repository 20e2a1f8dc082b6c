// How automatic mode names a source file in its locations (causal/launcher/source_names.h).
#include "causal/launcher/source_names.h"

#include <gtest/gtest.h>

namespace cprof::causal {
namespace {

TEST(SourceNames, AFileAloneWithItsNameIsNamedByItsBaseName) {
  const auto names = shortest_unique_names({"/src/x264/common/pixel.c", "/src/x264/common/mc.c"});
  EXPECT_EQ(names.at("/src/x264/common/pixel.c"), "pixel.c");
  EXPECT_EQ(names.at("/src/x264/common/mc.c"), "mc.c");
}

// x264 has common/macroblock.c and encoder/macroblock.c: the report showed the whole
// absolute path of each, which no table column holds.
TEST(SourceNames, FilesOfOneNameAreNamedByTheirShortestDifferingTail) {
  const auto names = shortest_unique_names(
      {"/src/x264/common/macroblock.c", "/src/x264/encoder/macroblock.c", "/src/x264/x264.c"});
  EXPECT_EQ(names.at("/src/x264/common/macroblock.c"), "common/macroblock.c");
  EXPECT_EQ(names.at("/src/x264/encoder/macroblock.c"), "encoder/macroblock.c");
  EXPECT_EQ(names.at("/src/x264/x264.c"), "x264.c");
}

TEST(SourceNames, ATailMustEndAtAPathComponent) {
  // "b.c" is not a tail of "ab.c": both stay short.
  const auto names = shortest_unique_names({"/p/ab.c", "/q/b.c"});
  EXPECT_EQ(names.at("/p/ab.c"), "ab.c");
  EXPECT_EQ(names.at("/q/b.c"), "b.c");
}

TEST(SourceNames, AFileThatIsATailOfAnotherKeepsItsWholePath) {
  // A relative name from DW_AT_name beside an absolute one that ends the same way.
  const auto names = shortest_unique_names({"lib/util.c", "/build/lib/util.c", "/other/x/util.c"});
  EXPECT_EQ(names.at("lib/util.c"), "lib/util.c");
  EXPECT_EQ(names.at("/build/lib/util.c"), "build/lib/util.c");
  EXPECT_EQ(names.at("/other/x/util.c"), "x/util.c");
}

}  // namespace
}  // namespace cprof::causal
