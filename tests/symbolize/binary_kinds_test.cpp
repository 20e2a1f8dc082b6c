// Each kind of binary users have (gcc/clang, DWARF 4/5, PIE/non-PIE, .so, split DWARF,
// compressed sections) gives the known source lines and inline chain of the fixture, and
// the same answers as llvm-symbolizer on every address of .text.

#include <gtest/gtest.h>

#include <random>

#include "support.h"
#include "symbolize/symbolizer.h"

namespace cprof::symbolize::test {
namespace {

struct Kind {
  const char* name;
  const char* file;
};

class BinaryKind : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    binary_ = fixture(GetParam().name, GetParam().file);
    if (binary_.empty()) GTEST_SKIP() << GetParam().name << " was not built (compiler missing?)";
    // A stripped copy has no symbols of its own; its addresses are gcc_O2's.
    symbols_ = std::string(GetParam().name) == "debuglink" ? fixture("gcc_O2") : binary_;
  }
  std::string binary_, symbols_;
};

// The fixture's leaf() is inlined into middle() inlined into fx_outer(): at the code of
// leaf's line, the chain must be leaf <- middle <- fx_outer with the call lines.
TEST_P(BinaryKind, InlineChainAtKnownLines) {
  Symbolizer sym;
  ModuleRef m{binary_, ""};
  auto ranges = sym.ranges_for_line(m, "prog.cpp", mark_line("leaf"));
  ASSERT_TRUE(ranges) << ranges.error().message;
  ASSERT_FALSE(ranges->empty());
  int exact = 0;
  std::string seen;
  for (const auto& r : *ranges) {
    auto s = sym.symbolize(m, std::vector<uint64_t>{r.low}).front();
    seen += describe(s) + "\n";
    ASSERT_FALSE(s.frames.empty());
    EXPECT_EQ(s.frames[0].line, mark_line("leaf"));
    EXPECT_TRUE(ends_with_path(s.frames[0].file, "prog.cpp")) << s.frames[0].file;
    if (s.frames.size() == 3 && s.frames[0].function == "int fx::leaf<int>(int)" &&
        s.frames[1].function == "fx::middle(int)" && s.frames[1].line == mark_line("middle_call") &&
        s.frames[2].function == "fx_outer" && s.frames[2].line == mark_line("outer_call")) {
      ++exact;
    }
  }
  EXPECT_GT(exact, 0) << "no address with the chain leaf <- middle <- fx_outer:\n" << seen;
}

TEST_P(BinaryKind, FunctionEntryHasNameAndLine) {
  auto addr = symbol_address(symbols_, "fx_outer");
  ASSERT_TRUE(addr);
  Symbolizer sym;
  auto s = sym.symbolize({binary_, ""}, std::vector<uint64_t>{*addr}).front();
  ASSERT_FALSE(s.frames.empty()) << describe(s);
  EXPECT_EQ(s.reason, Reason::ok) << describe(s);
  EXPECT_EQ(s.frames.back().function, "fx_outer");
  EXPECT_TRUE(ends_with_path(s.frames.front().file, "prog.cpp")) << describe(s);
}

TEST_P(BinaryKind, MangledNamesOnRequest) {
  auto addr = symbol_address(symbols_, "_ZN2ns12cpp_functionEli");
  ASSERT_TRUE(addr);
  Options o;
  o.demangle = false;
  Symbolizer sym(o);
  auto s = sym.symbolize({binary_, ""}, std::vector<uint64_t>{*addr}).front();
  ASSERT_FALSE(s.frames.empty());
  EXPECT_EQ(s.frames.back().function, "_ZN2ns12cpp_functionEli");
  Symbolizer demangling;
  auto d = demangling.symbolize({binary_, ""}, std::vector<uint64_t>{*addr}).front();
  EXPECT_EQ(d.frames.back().function, "ns::cpp_function(long, int)");
}

// llvm-symbolizer's empty answer is one "??" frame; ours is no frame.
std::vector<SourceFrame> normal(const Symbol& s) {
  std::vector<SourceFrame> f = s.frames;
  if (f.size() == 1 && f[0].function.empty() && f[0].file.empty()) f.clear();
  return f;
}

TEST_P(BinaryKind, AgreesWithLlvmSymbolizer) {
  if (!have_llvm_symbolizer()) GTEST_SKIP() << "llvm-symbolizer not installed";
  auto [lo, hi] = text_range(binary_);
  std::vector<uint64_t> addrs;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 400; ++i) addrs.push_back(lo + rng() % (hi - lo));
  Symbolizer sym;
  auto ours = sym.symbolize({binary_, ""}, addrs);
  // llvm-symbolizer names a stripped file's functions from the stripped file's (empty)
  // symbol table even when it found the debug file; we use the debug file's. So a
  // stripped copy must answer exactly as the unstripped original does.
  bool stripped = binary_ != symbols_;
  auto theirs = stripped ? Symbolizer().symbolize({symbols_, ""}, addrs) : llvm_symbolize(binary_, addrs);
  ASSERT_EQ(theirs.size(), addrs.size());
  int bad = 0;
  for (size_t i = 0; i < addrs.size(); ++i) {
    auto a = normal(ours[i]), b = normal(theirs[i]);
    bool same = a.size() == b.size();
    for (size_t k = 0; same && k < a.size(); ++k) {
      // One known difference, on purpose: a line-0 row inside one line's code takes that
      // line (attribute_enclosed_line_zero, docs/symbolize.md); llvm-symbolizer says 0.
      // Clang -O2 gives line 0 to rows of clone_me's loop.
      const bool enclosed_line_zero = k == 0 && b[k].line == 0 && a[k].line != 0;
      same = a[k].function == b[k].function && a[k].file == b[k].file &&
             (a[k].line == b[k].line || enclosed_line_zero);
    }
    if (!same && ++bad <= 5) {
      ADD_FAILURE() << std::hex << "0x" << addrs[i] << "\nours: " << describe(ours[i])
                    << "\nllvm-symbolizer: " << describe(theirs[i]);
    }
  }
  EXPECT_EQ(bad, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, BinaryKind,
    ::testing::Values(Kind{"gcc_O2", "prog"}, Kind{"clang_O2", "prog"},
                      Kind{"gcc_dwarf4", "prog"}, Kind{"clang_dwarf4", "prog"},
                      Kind{"gcc_nopie", "prog"}, Kind{"gcc_gz", "prog"}, Kind{"clang_gz", "prog"},
                      Kind{"gcc_split", "prog"}, Kind{"clang_split", "prog"},
                      Kind{"gcc_dwp", "prog"}, Kind{"clang_dwp", "prog"},
                      Kind{"gcc_so", "libprog.so"}, Kind{"debuglink", "prog"}),
    [](const auto& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace cprof::symbolize::test
