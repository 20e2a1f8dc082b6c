// JIT symbol maps in perf's format (report/load/perf_map.h).
#include "report/load/perf_map.h"

#include <gtest/gtest.h>

#include <sstream>

namespace cprof::report {
namespace {

std::vector<JitSymbol> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_perf_map(in);
}

TEST(PerfMap, LinesAreSortedAndMalformedOnesSkipped) {
  const auto s = parse(
      "7f0000002000 40 LazyCompile:*fib /app.js:1\n"
      "7f0000001000 100 JS:*main /app.js:9\r\n"
      "not a line\n"
      "7f0000003000 0 empty\n"
      "0x7f0000004000 0x10 prefixed\n");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].start, 0x7f0000001000u);
  EXPECT_EQ(s[0].end, 0x7f0000001100u);
  EXPECT_EQ(s[0].name, "JS:*main /app.js:9");  // blanks kept, the \r dropped
  EXPECT_EQ(s[1].name, "LazyCompile:*fib /app.js:1");
  EXPECT_EQ(s[2].name, "prefixed");
  EXPECT_EQ(find_jit_symbol(s, 0x7f0000002020)->name, "LazyCompile:*fib /app.js:1");
  EXPECT_EQ(find_jit_symbol(s, 0x7f0000002040), nullptr);  // one past its end
  EXPECT_EQ(find_jit_symbol(s, 0x7f0000000fff), nullptr);
}

// A runtime that compiles again over old code: the later line wins where they overlap.
TEST(PerfMap, ALaterLineWinsOverTheRangeItCovers) {
  const auto s = parse(
      "1000 100 old\n"   // [0x1000, 0x1100)
      "1040 20 new\n"    // [0x1040, 0x1060): inside old
      "10f0 20 next\n"   // [0x10f0, 0x1110): over old's tail
      "2000 10 a\n"
      "1ff0 30 b\n");    // [0x1ff0, 0x2020): covers a whole
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(find_jit_symbol(s, 0x1000)->name, "old");
  EXPECT_EQ(find_jit_symbol(s, 0x1045)->name, "new");
  EXPECT_EQ(find_jit_symbol(s, 0x1060)->name, "old");  // old's part after new
  EXPECT_EQ(find_jit_symbol(s, 0x10ef)->name, "old");
  EXPECT_EQ(find_jit_symbol(s, 0x10f0)->name, "next");
  EXPECT_EQ(find_jit_symbol(s, 0x1105)->name, "next");
  EXPECT_EQ(find_jit_symbol(s, 0x2005)->name, "b");
  for (size_t i = 1; i < s.size(); ++i) EXPECT_LE(s[i - 1].end, s[i].start);  // disjoint
}

// A perf map has no times: a sample in reused code cannot be told apart, so the lines that
// took over another function's code are counted for the report to say so (node reused a
// sieve function's code for a sort comparator, which took its samples silently).
TEST(PerfMap, CodeCompiledOverAnotherFunctionIsCounted) {
  const auto count = [](const std::string& text) {
    std::istringstream in(text);
    uint64_t reused = 0;
    parse_perf_map(in, &reused);
    return reused;
  };
  EXPECT_EQ(count("1000 100 a\n2000 100 b\n"), 0u);              // disjoint
  EXPECT_EQ(count("1000 100 a\n1000 100 a\n"), 0u);              // the same function anew
  EXPECT_EQ(count("1000 100 sieve\n1040 20 compare\n"), 1u);     // inside another
  EXPECT_EQ(count("1000 100 a\n2000 100 b\n10f0 f20 c\n"), 1u);  // over two: one line
  EXPECT_EQ(count("1000 100 a\n1000 100 b\n1000 100 a\n"), 2u);
}

}  // namespace
}  // namespace cprof::report
