// PLT stubs are named after the function they jump to ("puts@plt", as perf and objdump
// do), never after the symbol before them: a Python profile showed 5.6% of its samples in
// "_init" of libpython, all of them in .plt and .plt.got stubs. The fixtures
// (build_fixtures.sh, plt_*) are a library calling libc/libstdc++ through its PLT and a
// program calling the library through its own, linked lazily, with -z now, with IBT
// stubs (.plt.sec), with -fno-plt, stripped, and statically.

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "support.h"
#include "symbolize/elf/elf_file.h"
#include "symbolize/symbolizer.h"

namespace cprof::symbolize::test {
namespace {

constexpr std::string_view kPltSections[] = {".plt", ".plt.sec", ".plt.got"};

std::optional<AddressRange> section_range(const ElfFile& file, std::string_view name) {
  Elf_Scn* scn = file.section(name);
  GElf_Shdr shdr;
  if (scn == nullptr || gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_size == 0)
    return std::nullopt;
  return AddressRange{shdr.sh_addr, shdr.sh_addr + shdr.sh_size};
}

// Index of the R_X86_64_JUMP_SLOT relocation of `symbol` in .rela.plt.
std::optional<size_t> jump_slot_index(const ElfFile& file, const std::string& symbol) {
  Elf_Scn* scn = file.section(".rela.plt");
  GElf_Shdr shdr, sym_shdr;
  if (scn == nullptr || gelf_getshdr(scn, &shdr) == nullptr) return std::nullopt;
  Elf_Scn* sym_scn = elf_getscn(file.elf(), shdr.sh_link);
  if (sym_scn == nullptr || gelf_getshdr(sym_scn, &sym_shdr) == nullptr) return std::nullopt;
  Elf_Data* data = elf_getdata(scn, nullptr);
  Elf_Data* syms = elf_getdata(sym_scn, nullptr);
  GElf_Rela rela;
  for (int i = 0; data != nullptr && gelf_getrela(data, i, &rela) != nullptr; ++i) {
    GElf_Sym sym;
    if (GELF_R_TYPE(rela.r_info) != R_X86_64_JUMP_SLOT ||
        gelf_getsym(syms, static_cast<int>(GELF_R_SYM(rela.r_info)), &sym) == nullptr) {
      continue;
    }
    const char* name = elf_strptr(file.elf(), sym_shdr.sh_link, sym.st_name);
    if (name != nullptr && symbol == name) return static_cast<size_t>(i);
  }
  return std::nullopt;
}

std::string function_at(Symbolizer& s, const std::string& binary, uint64_t addr) {
  auto sym = s.symbolize({binary, ""}, std::vector<uint64_t>{addr}).front();
  return sym.frames.empty() ? "" : sym.frames.back().function;
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

struct PltCase {
  const char* kind;
  const char* file;
};
void PrintTo(const PltCase& c, std::ostream* os) { *os << c.kind << "/" << c.file; }

class PltStubs : public ::testing::TestWithParam<PltCase> {
 protected:
  void SetUp() override {
    binary_ = fixture(GetParam().kind, GetParam().file);
    if (binary_.empty())
      GTEST_SKIP() << GetParam().kind << "/" << GetParam().file << " was not built";
    auto file = ElfFile::open(binary_);
    ASSERT_TRUE(file) << file.error().message;
    file_ = std::move(file).value();
  }
  bool is_library() const { return std::string(GetParam().file) == "libplt.so"; }

  std::string binary_;
  std::unique_ptr<ElfFile> file_;
};

// The stub of each called function, found by the linker's layout (the i-th JUMP_SLOT
// relocation is the i-th .plt.sec stub, or the (i+1)-th .plt stub after the header),
// not by decoding it as the symbolizer does.
TEST_P(PltStubs, StubIsNamedAfterItsTarget) {
  auto plt = section_range(*file_, ".plt");
  auto sec = section_range(*file_, ".plt.sec");
  ASSERT_TRUE(plt);
  std::vector<std::pair<std::string, std::string>> targets = {{"plt_work", "plt_work@plt"}};
  if (is_library()) {
    targets = {{"puts", "puts@plt"},
               {"strlen", "strlen@plt"},
               {"fputs", "fputs@plt"},
               {"_Znwm", "operator new(unsigned long)@plt"}};
  }
  Symbolizer s;
  for (const auto& [target, expected] : targets) {
    auto index = jump_slot_index(*file_, target);
    ASSERT_TRUE(index) << "no JUMP_SLOT relocation for " << target;
    uint64_t stub = sec ? sec->low + 16 * *index : plt->low + 16 * (*index + 1);
    for (uint64_t at : {stub, stub + 6, stub + 15}) {
      EXPECT_EQ(function_at(s, binary_, at), expected) << target << " stub at 0x" << std::hex << at;
    }
    auto sym = s.symbolize({binary_, ""}, std::vector<uint64_t>{stub}).front();
    EXPECT_EQ(sym.reason, Reason::no_line_info) << describe(sym);
    if (sec) {
      // IBT: the lazy .plt entry only pushes the relocation's index (used once, when the
      // function is bound) and is named the same.
      EXPECT_EQ(function_at(s, binary_, plt->low + 16 * (*index + 1)), expected) << target;
    }
  }
  // The lazy-binding header jumps to the dynamic linker: the module's plain PLT name.
  EXPECT_EQ(function_at(s, binary_, plt->low), base_name(binary_) + "@plt");
}

// .plt.got: a stub for a function whose GOT slot is filled by a GLOB_DAT relocation
// (crtbegin's call of __cxa_finalize, whose address it also loads).
TEST_P(PltStubs, PltGotStubIsNamedAfterItsTarget) {
  auto got = section_range(*file_, ".plt.got");
  if (!got) GTEST_SKIP() << "no .plt.got";
  Symbolizer s;
  EXPECT_EQ(function_at(s, binary_, got->low), "__cxa_finalize@plt");
  EXPECT_EQ(function_at(s, binary_, got->high - 1), "__cxa_finalize@plt");
}

// Every byte of every PLT section has a PLT name, the header and padding included.
TEST_P(PltStubs, NoPltAddressIsNamedAfterThePrecedingSymbol) {
  Symbolizer s;
  int checked = 0;
  for (auto name : kPltSections) {
    auto range = section_range(*file_, name);
    if (!range) continue;
    std::vector<uint64_t> addrs;
    for (uint64_t a = range->low; a < range->high; ++a) addrs.push_back(a);
    auto syms = s.symbolize({binary_, ""}, addrs);
    for (size_t i = 0; i < addrs.size(); ++i, ++checked) {
      ASSERT_FALSE(syms[i].frames.empty()) << name << " 0x" << std::hex << addrs[i];
      const std::string& f = syms[i].frames.back().function;
      EXPECT_TRUE(f.ends_with("@plt")) << name << " 0x" << std::hex << addrs[i] << ": " << f;
    }
  }
  EXPECT_GT(checked, 0);
}

// objdump names the stubs by its own decoding of the PLT (elf_x86_64_get_synthetic_symtab):
// each "<NAME@plt>:" label and the stub's last byte must get NAME@plt (not demangled).
TEST_P(PltStubs, AgreesWithObjdump) {
  int status = 0;
  std::string listing =
      shell("objdump -d -j .plt -j .plt.sec -j .plt.got '" + binary_ + "' 2>&1", &status);
  if (status != 0) GTEST_SKIP() << "objdump failed or is missing: " << listing;
  Options mangled;
  mangled.demangle = false;
  Symbolizer s(mangled);
  static const std::regex kLabel("^([0-9a-f]+) <([^>+]+@plt)>:$");
  std::istringstream in(listing);
  std::string line;
  std::vector<std::pair<uint64_t, std::string>> labels;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, kLabel))
      labels.emplace_back(std::stoull(m[1], nullptr, 16), m[2]);
  }
  ASSERT_FALSE(labels.empty()) << listing;
  for (size_t i = 0; i < labels.size(); ++i) {
    const auto& [addr, name] = labels[i];
    EXPECT_EQ(function_at(s, binary_, addr), name) << "0x" << std::hex << addr;
    // The stub's last byte: up to the next label in the same section, or 8 bytes on.
    uint64_t end =
        i + 1 < labels.size() && labels[i + 1].first - addr <= 16 ? labels[i + 1].first : addr + 8;
    EXPECT_EQ(function_at(s, binary_, end - 1), name) << "0x" << std::hex << end - 1;
  }
}

// Outside the PLT nothing changes: every address of .init, .text and .fini is named as
// llvm-symbolizer names it; the last byte of .init (just before .plt) stays _init.
TEST_P(PltStubs, CodeOutsideThePltKeepsItsNames) {
  auto init = section_range(*file_, ".init");
  ASSERT_TRUE(init);
  Symbolizer s;
  if (std::string(GetParam().kind) != "plt_stripped") {
    EXPECT_EQ(function_at(s, binary_, init->high - 1), "_init");
  }
  if (!have_llvm_symbolizer()) GTEST_SKIP() << "llvm-symbolizer not installed";
  std::vector<uint64_t> addrs;
  for (auto name : {".init", ".text", ".fini"}) {
    if (auto r = section_range(*file_, name)) {
      for (uint64_t a = r->low; a < r->high; ++a) addrs.push_back(a);
    }
  }
  auto ours = s.symbolize({binary_, ""}, addrs);
  auto theirs = llvm_symbolize(binary_, addrs);
  ASSERT_EQ(theirs.size(), addrs.size());
  int differ = 0;
  for (size_t i = 0; i < addrs.size(); ++i) {
    std::string a = ours[i].frames.empty() ? "" : ours[i].frames.back().function;
    std::string b = theirs[i].frames.empty() ? "" : theirs[i].frames.back().function;
    if (a != b && ++differ <= 5) {
      ADD_FAILURE() << "0x" << std::hex << addrs[i] << ": " << a << " vs llvm-symbolizer " << b;
    }
  }
  EXPECT_EQ(differ, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, PltStubs,
    ::testing::Values(PltCase{"plt_lazy", "libplt.so"}, PltCase{"plt_lazy", "prog"},
                      PltCase{"plt_now", "libplt.so"}, PltCase{"plt_now", "prog"},
                      PltCase{"plt_ibt", "libplt.so"}, PltCase{"plt_ibt", "prog"},
                      PltCase{"plt_stripped", "libplt.so"}),
    [](const auto& p) {
      std::string n = std::string(p.param.kind) + "_" + p.param.file;
      for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
      return n;
    });

// -fno-plt calls through the GOT: only the header and .plt.got are left, and still named.
TEST(PltNoPlt, RemainingStubsHavePltNames) {
  std::string lib = fixture("plt_noplt", "libplt.so");
  ASSERT_FALSE(lib.empty());
  auto file = ElfFile::open(lib);
  ASSERT_TRUE(file) << file.error().message;
  Symbolizer s;
  EXPECT_FALSE(jump_slot_index(**file, "puts"));
  if (auto plt = section_range(**file, ".plt")) {
    EXPECT_EQ(function_at(s, lib, plt->low), "libplt.so@plt");
  }
  if (auto got = section_range(**file, ".plt.got")) {
    EXPECT_EQ(function_at(s, lib, got->low), "__cxa_finalize@plt");
  }
  if (auto init = section_range(**file, ".init")) {
    EXPECT_EQ(function_at(s, lib, init->high - 1), "_init");
  }
}

// A static program's .plt jumps to glibc's ifuncs through IRELATIVE slots, which name no
// symbol: the resolver's symbol names the stub (memcpy@plt, strlen@plt).
TEST(PltStatic, IfuncStubsAreNamedAfterTheirFunction) {
  std::string prog = fixture("plt_static");
  if (prog.empty()) GTEST_SKIP() << "no static libstdc++/libc to build plt_static";
  auto file = ElfFile::open(prog);
  ASSERT_TRUE(file) << file.error().message;
  auto plt = section_range(**file, ".plt");
  ASSERT_TRUE(plt);
  Symbolizer s;
  std::vector<uint64_t> addrs;
  for (uint64_t a = plt->low; a < plt->high; ++a) addrs.push_back(a);
  auto syms = s.symbolize({prog, ""}, addrs);
  std::set<std::string> names;
  for (size_t i = 0; i < addrs.size(); ++i) {
    ASSERT_FALSE(syms[i].frames.empty());
    const std::string& f = syms[i].frames.back().function;
    EXPECT_TRUE(f.ends_with("@plt") && f != "prog@plt")
        << "0x" << std::hex << addrs[i] << ": " << f;
    names.insert(f);
  }
  std::string all;
  for (const auto& n : names) all += n + " ";
  EXPECT_TRUE(names.count("memcpy@plt") == 1 && names.count("strlen@plt") == 1) << all;
}

}  // namespace
}  // namespace cprof::symbolize::test
