// FILE:LINE and FUNCTION -> address ranges (causal-run --line/--function/--progress).

#include <gtest/gtest.h>

#include "support.h"
#include "symbolize/symbolizer.h"

namespace cprof::symbolize::test {
namespace {

ModuleRef prog() { return {fixture("gcc_O2"), ""}; }

TEST(Reverse, LineRangesMapBackToTheLine) {
  Symbolizer s;
  auto ranges =
      s.ranges_for_line(prog(), "fixtures/prog.cpp", mark_line("outer_call"), LineCode::own_rows);
  ASSERT_TRUE(ranges) << ranges.error().message;
  ASSERT_FALSE(ranges->empty());
  for (const auto& r : *ranges) {
    EXPECT_LT(r.low, r.high);
    auto sym = s.symbolize(prog(), std::vector<uint64_t>{r.low}).front();
    ASSERT_FALSE(sym.frames.empty());
    EXPECT_EQ(sym.frames.front().line, mark_line("outer_call")) << describe(sym);
  }
}

// The code inlined from a call on the line is the line's too (its total in the report):
// every range has the line in its inline chain, and fx::middle's loop, inlined there, is
// among them.
TEST(Reverse, LineRangesHoldTheCodeInlinedFromTheLine) {
  Symbolizer s;
  const uint32_t outer = mark_line("outer_call");
  auto ranges = s.ranges_for_line(prog(), "prog.cpp", outer);
  ASSERT_TRUE(ranges) << ranges.error().message;
  bool inlined_body = false;
  for (const auto& r : *ranges) {
    auto sym = s.symbolize(prog(), std::vector<uint64_t>{r.low}).front();
    bool on_line = false;
    for (const auto& f : sym.frames) on_line |= f.line == outer;
    EXPECT_TRUE(on_line) << describe(sym);
    for (uint64_t a = r.low; a < r.high; ++a) {
      auto at = s.symbolize(prog(), std::vector<uint64_t>{a}).front();
      inlined_body |= !at.frames.empty() && at.frames.front().line == mark_line("middle_call");
    }
  }
  EXPECT_TRUE(inlined_body);
  // Own rows only: none of the inlined loop.
  auto own = s.ranges_for_line(prog(), "prog.cpp", outer, LineCode::own_rows);
  ASSERT_TRUE(own);
  uint64_t own_bytes = 0, all_bytes = 0;
  for (const auto& r : *own) own_bytes += r.high - r.low;
  for (const auto& r : *ranges) all_bytes += r.high - r.low;
  EXPECT_LT(own_bytes, all_bytes);
}

TEST(Reverse, SuffixMatchesWholeComponentsOnly) {
  Symbolizer s;
  EXPECT_TRUE(s.ranges_for_line(prog(), "prog.cpp", mark_line("outer_call")));
  auto r = s.ranges_for_line(prog(), "og.cpp", mark_line("outer_call"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no source file matches 'og.cpp'"), std::string::npos)
      << r.error().message;
}

TEST(Reverse, LineWithoutCodeNamesNearestLines) {
  Symbolizer s;
  auto r = s.ranges_for_line(prog(), "prog.cpp", mark_line("no_code"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("has no code; nearest lines with code: "), std::string::npos)
      << r.error().message;
}

TEST(Reverse, AmbiguousFileListsCandidates) {
  Symbolizer s;
  auto r = s.ranges_for_line(prog(), "util.h", 3);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("ambiguous"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("dup/a/util.h"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("dup/b/util.h"), std::string::npos) << r.error().message;
  EXPECT_TRUE(s.ranges_for_line(prog(), "a/util.h", mark_line("a_util", "dup/a/util.h")));
}

TEST(Reverse, FunctionByRegex) {
  Symbolizer s;
  auto found = s.ranges_for_function(prog(), "^ns::cpp_function");
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->size(), 1u);
  auto addr = symbol_address(fixture("gcc_O2"), "_ZN2ns12cpp_functionEli");
  ASSERT_TRUE(addr);
  const auto& f = found->front();
  EXPECT_EQ(f.function, "ns::cpp_function(long, int)");
  EXPECT_FALSE(f.inlined);
  ASSERT_FALSE(f.ranges.empty());
  EXPECT_EQ(f.ranges.front().low, *addr);
}

// One body is one location, named as the report names its frames: GCC's clone of
// clone_me has DW_AT_name "clone_me" and the ELF symbol "(anonymous namespace)::
// clone_me(int, int) (.constprop.0)"; both match, and they used to be two locations of
// the same code, the first of which the report found in no sample.
TEST(Reverse, AFunctionsBodyIsOneEntryNamedAsItsFrames) {
  Symbolizer s;
  auto found = s.ranges_for_function(prog(), "clone_me");
  ASSERT_TRUE(found) << found.error().message;
  std::vector<const FunctionRanges*> bodies;
  for (const auto& f : *found) {
    if (!f.inlined) bodies.push_back(&f);
  }
  ASSERT_EQ(bodies.size(), 1u);
  ASSERT_FALSE(bodies[0]->ranges.empty());
  const auto sym = s.symbolize(prog(), std::vector<uint64_t>{bodies[0]->ranges[0].low}).front();
  ASSERT_FALSE(sym.frames.empty());
  EXPECT_EQ(bodies[0]->function, sym.frames.back().function);
  EXPECT_NE(bodies[0]->function.find("clone_me("), std::string::npos) << bodies[0]->function;
}

TEST(Reverse, InlinedFunctionCopiesAreListed) {
  Symbolizer s;
  auto found = s.ranges_for_function(prog(), "fx::leaf");
  ASSERT_TRUE(found) << found.error().message;
  bool inlined = false;
  for (const auto& f : *found) inlined |= f.inlined && !f.ranges.empty();
  EXPECT_TRUE(inlined);
}

TEST(Reverse, NoMatchAndBadRegexAreErrors) {
  Symbolizer s;
  EXPECT_FALSE(s.ranges_for_function(prog(), "no_such_function_anywhere"));
  auto bad = s.ranges_for_function(prog(), "(");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad function pattern"), std::string::npos);
}

TEST(Reverse, ParseSourceLine) {
  auto ok = parse_source_line("src/a.cpp:42");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->file, "src/a.cpp");
  EXPECT_EQ(ok->line, 42u);
  EXPECT_FALSE(parse_source_line("a.cpp"));
  EXPECT_FALSE(parse_source_line("a.cpp:x"));
  EXPECT_FALSE(parse_source_line("a.cpp:0"));
}

}  // namespace
}  // namespace cprof::symbolize::test
