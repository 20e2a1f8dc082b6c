// causal-symbolize, the addr2line-compatible command, and the demangling rules.

#include <gtest/gtest.h>

#include <sstream>

#include "support.h"
#include "symbolize/demangle.h"

namespace cprof::symbolize::test {
namespace {

std::string tool() { return CPROF_CAUSAL_SYMBOLIZE; }

std::string hex(uint64_t a) {
  std::ostringstream s;
  s << "0x" << std::hex << a;
  return s.str();
}

TEST(Tool, Addr2lineLayoutWithInlines) {
  std::string bin = fixture("gcc_O2");
  auto addr = symbol_address(bin, "_ZN2ns12cpp_functionEli");
  ASSERT_TRUE(addr);
  int rc = -1;
  std::string out = shell(tool() + " -e " + bin + " -f -i -C -a " + hex(*addr), &rc);
  EXPECT_EQ(rc, 0);
  char padded[32];
  std::snprintf(padded, sizeof padded, "0x%016llx", static_cast<unsigned long long>(*addr));
  EXPECT_EQ(out.rfind(std::string(padded) + "\nns::cpp_function(long, int)\n", 0), 0u) << out;
  EXPECT_NE(out.find("prog.cpp:"), std::string::npos) << out;
}

TEST(Tool, LlvmStyleIsByteForByteLlvmSymbolizer) {
  if (!have_llvm_symbolizer()) GTEST_SKIP();
  std::string bin = fixture("gcc_O2");
  auto [lo, hi] = text_range(bin);
  std::string addrs;
  for (uint64_t a = lo; a < hi; a += 3) addrs += hex(a) + "\n";
  std::string file = "/tmp/cprof-tool-" + std::to_string(getpid());
  shell("printf '" + addrs + "' > " + file);
  std::string ours = shell(tool() + " -e " + bin + " -fiC --output-style=LLVM < " + file);
  std::string theirs = shell("llvm-symbolizer --obj=" + bin +
                             " --inlining --functions=linkage --demangle < " + file);
  shell("rm -f " + file);
  EXPECT_EQ(ours, theirs);
}

TEST(Tool, ReadsStdinOneAnswerPerLine) {
  std::string bin = fixture("gcc_O2");
  auto addr = symbol_address(bin, "fx_outer");
  ASSERT_TRUE(addr);
  std::string out = shell("printf '" + hex(*addr) + "\\nnot-an-address\\n" + hex(*addr) +
                          "\\n' | " + tool() + " -e " + bin + " -f");
  EXPECT_EQ(out, "fx_outer\n" + out.substr(9, out.find('\n', 9) - 9 + 1) + "??\n??:0\n" +
                     out.substr(0, out.find('\n', 9) + 1))
      << out;
}

TEST(Tool, MissingFileIsOneClearError) {
  int rc = 0;
  std::string err = shell(tool() + " -e /nonexistent/app 0x1000 2>&1", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("/nonexistent/app"), std::string::npos) << err;
}

TEST(Tool, ReverseLookups) {
  std::string bin = fixture("gcc_O2");
  int rc = -1;
  std::string out = shell(tool() + " -e " + bin + " --line prog.cpp:" +
                              std::to_string(mark_line("outer_call")), &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out.rfind("0x", 0), 0u) << out;
  std::string err = shell(tool() + " -e " + bin + " --line util.h:3 2>&1", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("ambiguous"), std::string::npos) << err;
}

TEST(Demangle, Styles) {
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("_Z3fooi"), "foo(int)");
  EXPECT_EQ(demangle("_Z3fooi", DemangleStyle::gnu), "foo(int)");
  EXPECT_EQ(demangle("_Z3fooi.cold", DemangleStyle::gnu), "foo(int) [clone .cold]");
  EXPECT_EQ(demangle("_Z3fooi.cold", DemangleStyle::llvm), "foo(int) (.cold)");
  EXPECT_EQ(demangle("_Znot-valid", DemangleStyle::gnu), "_Znot-valid");
  EXPECT_EQ(demangle("_Znot-valid", DemangleStyle::llvm), "_Znot-valid");
}

}  // namespace
}  // namespace cprof::symbolize::test
