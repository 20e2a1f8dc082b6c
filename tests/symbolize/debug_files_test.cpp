// Where the DWARF comes from: build-id directories, .gnu_debuglink, stripped files with
// only symbol tables or .gnu_debugdata, rebuilt binaries, missing files, .dwp packages,
// and a shared library loaded with dlopen.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>

#include "support.h"
#include "symbolize/symbolizer.h"

namespace cprof::symbolize::test {
namespace {

uint64_t outer_addr() {
  auto a = symbol_address(fixture("gcc_O2"), "fx_outer");
  if (!a) throw std::runtime_error("fixture gcc_O2 lacks fx_outer");
  return *a;
}

std::string read_id(const std::string& kind) {
  std::ifstream in(fixture_dir() + "/" + kind + "/build-id");
  std::string id;
  in >> id;
  return id;
}

Symbol one(Symbolizer& s, const ModuleRef& m, uint64_t addr) {
  return s.symbolize(m, std::vector<uint64_t>{addr}).front();
}

TEST(DebugFiles, BuildIdDirectoryIsSearched) {
  Options o;
  o.debug_dirs = {fixture_dir() + "/buildid/root"};
  Symbolizer s(o);
  auto sym = one(s, {fixture("buildid"), read_id("buildid")}, outer_addr());
  EXPECT_EQ(sym.reason, Reason::ok) << describe(sym);
  ASSERT_FALSE(sym.frames.empty());
  EXPECT_EQ(sym.frames.back().function, "fx_outer");
  EXPECT_TRUE(ends_with_path(sym.frames.front().file, "prog.cpp"));
}

TEST(DebugFiles, WithoutTheDebugDirOnlyReasonIsGiven) {
  Options o;
  o.debug_dirs = {"/nonexistent"};
  Symbolizer s(o);
  auto sym = one(s, {fixture("buildid"), ""}, outer_addr());
  EXPECT_TRUE(sym.frames.empty());
  EXPECT_EQ(sym.reason, Reason::no_symbols);
}

TEST(DebugFiles, SymtabOnlyGivesNamesWithoutLines) {
  Symbolizer s;
  auto sym = one(s, {fixture("symtab_only"), ""}, outer_addr() + 4);
  ASSERT_EQ(sym.frames.size(), 1u) << describe(sym);
  EXPECT_EQ(sym.frames[0].function, "fx_outer");
  EXPECT_EQ(sym.frames[0].line, 0u);
  EXPECT_EQ(sym.reason, Reason::no_line_info);
}

TEST(DebugFiles, GnuDebugdataGivesLocalFunctionNames) {
  Symbolizer s;
  auto sym = one(s, {fixture("debugdata"), ""}, outer_addr() + 4);
  ASSERT_EQ(sym.frames.size(), 1u) << describe(sym);
  EXPECT_EQ(sym.frames[0].function, "fx_outer");
  EXPECT_EQ(sym.reason, Reason::no_line_info);
}

TEST(DebugFiles, FullyStrippedSaysNoSymbols) {
  Symbolizer s;
  auto sym = one(s, {fixture("stripped"), ""}, outer_addr());
  EXPECT_TRUE(sym.frames.empty());
  EXPECT_EQ(sym.reason, Reason::no_symbols);
}

// No name, but the FDE of .eh_frame that covers the address bounds its function: every
// address in fx_outer gives fx_outer's start (elf/unwind_functions.h). A named address
// carries none.
TEST(DebugFiles, FullyStrippedCodeIsBoundedByItsUnwindTable) {
  Symbolizer s;
  const uint64_t start = outer_addr();
  for (const uint64_t addr : {start, start + 1, start + 4}) {
    auto sym = one(s, {fixture("stripped"), ""}, addr);
    EXPECT_TRUE(sym.frames.empty());
    EXPECT_EQ(sym.reason, Reason::no_symbols);
    EXPECT_EQ(sym.function_start, start) << std::hex << addr;
  }
  EXPECT_EQ(one(s, {fixture("gcc_O2"), ""}, start + 4).function_start, 0u);
  // Another function starts elsewhere.
  const auto main_addr = symbol_address(fixture("gcc_O2"), "main");
  ASSERT_TRUE(main_addr.has_value());
  EXPECT_EQ(one(s, {fixture("stripped"), ""}, *main_addr + 2).function_start, *main_addr);
}

TEST(DebugFiles, RebuiltBinaryIsReportedNotMisread) {
  Symbolizer s;
  // The run recorded gcc_O2's build-id, but the file at the path is another build.
  ModuleRef m{fixture("rebuilt"), read_id("gcc_O2")};
  auto sym = one(s, m, outer_addr());
  EXPECT_TRUE(sym.frames.empty()) << describe(sym);
  EXPECT_EQ(sym.reason, Reason::build_id_mismatch);
  EXPECT_EQ(s.status(m), Reason::build_id_mismatch);
  auto notes = s.diagnostics(m);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes[0].find("rebuilt"), std::string::npos) << notes[0];
}

TEST(DebugFiles, RebuiltBinaryWithOldDebugFileByBuildId) {
  Options o;
  o.debug_dirs = {fixture_dir() + "/buildid/root"};  // holds gcc_O2's debug file
  Symbolizer s(o);
  auto sym = one(s, {fixture("rebuilt"), read_id("buildid")}, outer_addr());
  EXPECT_EQ(sym.reason, Reason::ok) << describe(sym);
  ASSERT_FALSE(sym.frames.empty());
  EXPECT_EQ(sym.frames.back().function, "fx_outer");
}

TEST(DebugFiles, MissingFile) {
  Symbolizer s;
  ModuleRef m{"/nonexistent/app", ""};
  auto out = s.symbolize(m, std::vector<uint64_t>{1, 2});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].reason, Reason::missing_file);
  EXPECT_EQ(s.status(m), Reason::missing_file);
}

TEST(DebugFiles, UnmappedAddress) {
  Symbolizer s;
  auto sym = one(s, {fixture("gcc_O2"), ""}, 0x10);
  EXPECT_EQ(sym.reason, Reason::unmapped);
}

// Without its .dwo, a split unit still gives file:line (the line table stays in the
// executable) and the function from the symbol table, and the reason says what is missing.
TEST(DebugFiles, MissingDwoGivesLinesAndSaysWhatIsMissing) {
  std::string bin = fixture("split_missing");
  Symbolizer s;
  auto addr = symbol_address(bin, "fx_outer");
  ASSERT_TRUE(addr);
  auto sym = one(s, {bin, ""}, *addr);
  ASSERT_EQ(sym.frames.size(), 1u) << describe(sym);
  EXPECT_EQ(sym.frames.back().function, "fx_outer");
  EXPECT_TRUE(ends_with_path(sym.frames.back().file, "prog.cpp")) << describe(sym);
  EXPECT_EQ(sym.reason, Reason::missing_split_dwarf);
  auto notes = s.diagnostics({bin, ""});
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.back().find("prog.dwo not found"), std::string::npos) << notes.back();
}

// A FIFO where a file is read (a module, a .dwo, a .gnu_debuglink target) blocked the
// symbolizer in open() for ever; each is now refused as not a regular file. (ctest's
// timeout fails these tests if a read blocks.)
TEST(DebugFiles, AFifoModuleIsRefusedNotWaitedOn) {
  Symbolizer s;
  const ModuleRef m{fixture("fifo_module"), ""};
  auto out = s.symbolize(m, std::vector<uint64_t>{0x1000});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].reason, Reason::ok);
  bool said = false;
  for (const auto& note : s.diagnostics(m))
    said |= note.find("not a regular file") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(DebugFiles, AFifoDwoIsRefusedNotWaitedOn) {
  std::string bin = fixture("split_fifo");
  Symbolizer s;
  auto addr = symbol_address(bin, "fx_outer");
  ASSERT_TRUE(addr);
  auto sym = one(s, {bin, ""}, *addr);
  ASSERT_FALSE(sym.frames.empty()) << describe(sym);
  EXPECT_EQ(sym.frames.back().function, "fx_outer");
  EXPECT_EQ(sym.reason, Reason::missing_split_dwarf);
  auto notes = s.diagnostics({bin, ""});
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.back().find("is not a regular file"), std::string::npos) << notes.back();
}

TEST(DebugFiles, AFifoDebuglinkTargetIsRefusedNotWaitedOn) {
  std::string bin = fixture("debuglink_fifo");
  Symbolizer s;
  auto sym = one(s, {bin, ""}, 0x1000);
  EXPECT_NE(sym.reason, Reason::ok);  // answered, whatever it found
}

// A module loaded with dlopen: runtime address - load bias = ELF address, as the sampler
// records it.
TEST(DebugFiles, DlopenedLibrary) {
  std::string so = fixture("gcc_so", "libprog.so");
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  void* fn = dlsym(h, "fx_outer");
  ASSERT_NE(fn, nullptr);
  Dl_info info{};
  ASSERT_NE(dladdr(fn, &info), 0);
  uint64_t elf_addr = reinterpret_cast<uint64_t>(fn) - reinterpret_cast<uint64_t>(info.dli_fbase);
  Symbolizer s;
  auto sym = one(s, {so, ""}, elf_addr);
  ASSERT_FALSE(sym.frames.empty()) << describe(sym);
  EXPECT_EQ(sym.frames.back().function, "fx_outer");
  EXPECT_EQ(sym.reason, Reason::ok);
  dlclose(h);
}

TEST(Batch, ManyModulesInParallelMatchOneByOne) {
  std::vector<ModuleAddresses> batch;
  for (const char* kind : {"gcc_O2", "gcc_dwarf4", "gcc_nopie", "gcc_gz", "gcc_split"}) {
    std::string bin = fixture(kind);
    auto [lo, hi] = text_range(bin);
    ModuleAddresses m{{bin, ""}, {}};
    for (uint64_t a = lo; a < hi; a += 7) m.addresses.push_back(a);
    m.addresses.push_back(lo);  // a duplicate
    batch.push_back(std::move(m));
  }
  Symbolizer parallel;
  auto all = parallel.symbolize(batch);
  ASSERT_EQ(all.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    Symbolizer alone;
    auto expected = alone.symbolize(batch[i].module, batch[i].addresses);
    ASSERT_EQ(all[i].size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      EXPECT_EQ(describe(all[i][k]), describe(expected[k]));
    }
  }
}

}  // namespace
}  // namespace cprof::symbolize::test
