// Rust symbols, both manglings, demangled for a profile (symbolize/rust_legacy_names.h,
// symbolize/demangle.h). The names are rustc 1.95's, from a test binary: its own crate in
// the legacy mangling, the standard library in v0.
#include <gtest/gtest.h>

#include "symbolize/demangle.h"
#include "symbolize/rust_legacy_names.h"

namespace cprof::symbolize::test {
namespace {

TEST(RustLegacyNames, PathWithoutTheHashAndWithEscapesDecoded) {
  EXPECT_EQ(rust_legacy_name("_ZN2so4main17h5f3e7ffaba5bd164E"), "so::main");
  EXPECT_EQ(rust_legacy_name("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$"
                             "17h0123456789abcdefE"),
            "std::rt::lang_start::{{closure}}");
  EXPECT_EQ(rust_legacy_name("_ZN60_$LT$std..io..stdio..StderrRaw$u20$as$u20$std..io..Write$GT$"
                             "9write_all17h0123456789abcdefE"),
            "<std::io::stdio::StderrRaw as std::io::Write>::write_all");
  EXPECT_EQ(rust_legacy_name("_ZN4core3ptr49drop_in_place$LT$$RF$mut$u20$$BP$const$u20$u8$GT$"
                             "17h0123456789abcdefE"),
            "core::ptr::drop_in_place<&mut *const u8>");
  EXPECT_EQ(rust_legacy_name("_ZN4core3fmt5write29_$LP$$RP$$C$$u5b$u8$u5d$$SP$x"
                             "17h0123456789abcdefE"),
            "core::fmt::write::(),[u8]@x");
  // LLVM's suffix for a function it made local is dropped with the hash.
  EXPECT_EQ(rust_legacy_name("_ZN2so4main17h5f3e7ffaba5bd164E.llvm.1234567"), "so::main");
}

TEST(RustLegacyNames, AnythingElseIsNotOne) {
  EXPECT_EQ(rust_legacy_name("main"), std::nullopt);
  EXPECT_EQ(rust_legacy_name("_ZN3foo3barEv"), std::nullopt);     // C++: foo::bar()
  EXPECT_EQ(rust_legacy_name("_ZN3foo3barE"), std::nullopt);      // C++: no hash
  EXPECT_EQ(rust_legacy_name("_ZN17h5f3e7ffaba5bd164E"), std::nullopt);  // only a hash
  EXPECT_EQ(rust_legacy_name("_ZN2so4main17h5f3e7ffaba5bd16xE"), std::nullopt);
  EXPECT_EQ(rust_legacy_name("_ZN5so$X$17h5f3e7ffaba5bd164E"), std::nullopt);  // unknown escape
  EXPECT_EQ(rust_legacy_name("_ZN6so$u7b17h5f3e7ffaba5bd164E"), std::nullopt);  // unclosed
  EXPECT_EQ(rust_legacy_name("_ZN2so4main17h5f3e7ffaba5bd164"), std::nullopt);  // no E
  EXPECT_EQ(rust_legacy_name("_ZN99so17h5f3e7ffaba5bd164E"), std::nullopt);  // length past end
}

TEST(RustNames, BothManglingsAreDemangledInEitherStyle) {
  for (const auto style : {DemangleStyle::llvm, DemangleStyle::gnu}) {
    EXPECT_EQ(demangle("_ZN2so4main17h5f3e7ffaba5bd164E", style), "so::main");
    EXPECT_EQ(demangle("_ZN3foo3barEv", style), "foo::bar()");  // C++ is unchanged
  }
  if (!have_llvm_demangler()) GTEST_SKIP() << "v0 needs libLLVMDemangle";
  EXPECT_EQ(demangle("_RNvCs6lGjzrYSRJx_2so4main"), "so::main");
  EXPECT_EQ(demangle("_RNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0Cs6lGjzrYSRJx_2so"),
            "std::rt::lang_start::<()>::{closure#0}");
  EXPECT_EQ(demangle("_Rnot-valid"), "_Rnot-valid");
}

}  // namespace
}  // namespace cprof::symbolize::test
