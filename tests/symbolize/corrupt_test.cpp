// Corrupt ELF or DWARF gives a clear message and no crash: every address still gets an
// answer (possibly empty, with a Reason), and the damage is named in diagnostics().

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "support.h"
#include "symbolize/symbolizer.h"

namespace cprof::symbolize::test {
namespace {

namespace fs = std::filesystem;

class Corrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cprof-corrupt-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    original_ = fixture("gcc_O2");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string copy(const std::string& name) {
    std::string path = (dir_ / name).string();
    fs::copy_file(original_, path, fs::copy_options::overwrite_existing);
    return path;
  }
  // Overwrites `length` bytes at `offset` with seeded random bytes.
  static void scribble(const std::string& path, uint64_t offset, uint64_t length, uint32_t seed) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offset));
    std::mt19937 rng(seed);
    for (uint64_t i = 0; i < length; ++i) f.put(static_cast<char>(rng()));
  }
  static std::pair<uint64_t, uint64_t> section(const std::string& path, const std::string& name) {
    std::istringstream in(shell("readelf -SW '" + path + "' | sed -n 's/.* " + name +
                                "  *PROGBITS  *//p'"));
    std::string addr, off, size;
    in >> addr >> off >> size;
    if (off.empty()) return {0, 0};
    return {std::stoull(off, nullptr, 16), std::stoull(size, nullptr, 16)};
  }
  // Symbolizes every 5th byte of .text; must not crash and must answer each address.
  std::vector<Symbol> sweep(Symbolizer& s, const std::string& path) {
    auto [lo, hi] = text_range(original_);
    std::vector<uint64_t> addrs;
    for (uint64_t a = lo; a < hi; a += 5) addrs.push_back(a);
    auto out = s.symbolize({path, ""}, addrs);
    EXPECT_EQ(out.size(), addrs.size());
    return out;
  }

  fs::path dir_;
  std::string original_;
};

TEST_F(Corrupt, NotAnElfFile) {
  std::string path = (dir_ / "garbage").string();
  {
    std::ofstream f(path);
    f << "this is not an ELF file at all";
  }
  Symbolizer s;
  auto out = s.symbolize({path, ""}, std::vector<uint64_t>{0x1000});
  EXPECT_EQ(out[0].reason, Reason::invalid_file);
  auto notes = s.diagnostics({path, ""});
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes[0].find(path), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("not an ELF"), std::string::npos) << notes[0];
}

TEST_F(Corrupt, TruncatedElf) {
  std::string path = copy("truncated");
  fs::resize_file(path, 3000);
  Symbolizer s;
  auto out = sweep(s, path);
  for (const auto& sym : out) EXPECT_NE(sym.reason, Reason::ok);
  EXPECT_FALSE(s.diagnostics({path, ""}).empty());
}

TEST_F(Corrupt, TruncatedInsideDwarf) {
  std::string path = copy("truncated-dwarf");
  auto [off, size] = section(path, ".debug_info");
  ASSERT_GT(size, 0u);
  fs::resize_file(path, off + size / 2);
  Symbolizer s;
  sweep(s, path);
  EXPECT_FALSE(s.diagnostics({path, ""}).empty());
}

// Random bytes over each DWARF section in turn, several seeds each.
TEST_F(Corrupt, ScribbledDwarfSections) {
  for (const char* name : {".debug_info", ".debug_abbrev", ".debug_line", ".debug_str",
                           ".debug_rnglists", ".debug_line_str", ".debug_aranges"}) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      std::string path = copy(std::string("scribbled") + name + std::to_string(seed));
      auto [off, size] = section(path, name);
      if (size == 0) continue;
      // Hit the start (headers) for seed 1, the middle otherwise.
      uint64_t at = seed == 1 ? off : off + size / (seed + 1);
      scribble(path, at, std::min<uint64_t>(size - (at - off), 64 + seed * 200), seed);
      Symbolizer s;
      SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
      sweep(s, path);
      // Reverse lookups read everything; they may fail, but with a message.
      auto r = s.ranges_for_line({path, ""}, "prog.cpp", mark_line("leaf"));
      if (!r) {
        EXPECT_FALSE(r.error().message.empty());
      }
      auto f = s.ranges_for_function({path, ""}, "fx_");
      if (!f) {
        EXPECT_FALSE(f.error().message.empty());
      }
    }
  }
}

TEST_F(Corrupt, ScribbledSectionHeaders) {
  std::string path = copy("bad-shdr");
  std::istringstream in(shell("readelf -hW '" + path + "' | sed -n 's/.*Start of section headers: *\\([0-9]*\\).*/\\1/p'"));
  uint64_t shoff = 0;
  in >> shoff;
  ASSERT_GT(shoff, 0u);
  scribble(path, shoff + 64, 64 * 5, 7);
  Symbolizer s;
  sweep(s, path);
}

}  // namespace
}  // namespace cprof::symbolize::test
