#include "symbolize/elf/plt.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <tuple>
#include <utility>

namespace cprof::symbolize {
namespace {

constexpr std::string_view kPltSections[] = {".plt", ".plt.sec", ".plt.got", ".plt.bnd"};

// What one x86-64 stub says about its target.
struct Decoded {
  enum Kind : uint8_t { none, slot, index } kind = none;
  uint64_t value = 0;  // the GOT slot it jumps through, or its .rela.plt index
};

uint32_t le32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The stubs GNU ld, lld and mold write:
//   [endbr64] [bnd] jmp *disp32(%rip)         lazy .plt, .plt.sec, .plt.got, .plt.bnd
//   [endbr64] push $index; [bnd] jmp PLT0     .plt of an IBT build: .rela.plt[index]
//   endbr64; mov $index, %r11d; jmp *disp32(%rip)    mold
//   push GOT+8(%rip); [bnd] jmp *GOT+16(%rip) PLT0, the lazy-binding header: no target
// Decoding the jmp instead of counting entries works whatever the order of the sections'
// entries and their relocations.
Decoded decode_stub(const unsigned char* p, size_t n, uint64_t addr) {
  size_t i = 0;
  if (n >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) i = 4;  // endbr64
  if (i + 6 <= n && p[i] == 0x41 && p[i + 1] == 0xbb) i += 6;  // mov $imm32, %r11d
  if (i < n && p[i] == 0xf2) ++i;                              // bnd
  if (i + 6 <= n && p[i] == 0xff && p[i + 1] == 0x25) {
    auto disp = static_cast<int32_t>(le32(p + i + 2));
    return {Decoded::slot, addr + i + 6 + static_cast<uint64_t>(int64_t{disp})};
  }
  if (i + 5 <= n && p[i] == 0x68) return {Decoded::index, le32(p + i + 1)};
  return {};
}

// GNU ld gives the stub size as sh_entsize (16; 8 for .plt.got without IBT). Where it is
// 0 (the .plt of a static program, lld), stubs are 16 bytes except GNU ld's 8-byte form
// "jmp *disp32(%rip); xchg %ax,%ax".
size_t stub_size(const GElf_Shdr& shdr, const unsigned char* p, size_t n) {
  if (shdr.sh_entsize >= 8 && shdr.sh_entsize <= 64) return shdr.sh_entsize;
  bool short_form = n >= 8 && p[0] == 0xff && p[1] == 0x25 && p[6] == 0x66 && p[7] == 0x90;
  return short_form ? 8 : 16;
}

struct Target {
  const char* symbol = nullptr;
  uint64_t ifunc = 0;
  bool known() const { return symbol != nullptr || ifunc != 0; }
};

// The target a dynamic relocation puts in its slot: its symbol, or the resolver of an
// IRELATIVE relocation (a local ifunc, e.g. strlen in a static program).
Target target_of(Elf* elf, const GElf_Rela& rela, Elf_Data* symbols, size_t strings) {
  Target t;
  auto sym_index = GELF_R_SYM(rela.r_info);
  GElf_Sym sym;
  if (sym_index != 0 && symbols != nullptr &&
      gelf_getsym(symbols, static_cast<int>(sym_index), &sym) != nullptr) {
    const char* name = elf_strptr(elf, strings, sym.st_name);
    if (name != nullptr && *name != '\0') t.symbol = name;
  } else if (sym_index == 0 && GELF_R_TYPE(rela.r_info) == R_X86_64_IRELATIVE) {
    t.ifunc = static_cast<uint64_t>(rela.r_addend);
  }
  return t;
}

}  // namespace

PltTable::PltTable(const ElfFile* file) : file_(file) {
  for (std::string_view name : kPltSections) {
    Elf_Scn* scn = file->section(name);
    GElf_Shdr shdr;
    if (scn == nullptr || gelf_getshdr(scn, &shdr) == nullptr) continue;
    if ((shdr.sh_flags & SHF_ALLOC) == 0 || shdr.sh_size == 0) continue;
    sections_.push_back({shdr.sh_addr, shdr.sh_addr + shdr.sh_size});
  }
  std::sort(sections_.begin(), sections_.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.low < b.low; });
}

bool PltTable::contains(uint64_t addr) const {
  auto it = std::upper_bound(sections_.begin(), sections_.end(), addr,
                             [](uint64_t a, const AddressRange& r) { return a < r.low; });
  return it != sections_.begin() && addr < std::prev(it)->high;
}

const PltTable::Stub* PltTable::find(uint64_t addr) {
  if (!decoded_) decode();
  auto it = std::upper_bound(stubs_.begin(), stubs_.end(), addr,
                             [](uint64_t a, const Stub& s) { return a < s.low; });
  if (it == stubs_.begin() || addr >= std::prev(it)->high) return nullptr;
  return &*std::prev(it);
}

void PltTable::decode() {
  decoded_ = true;
  if (file_ == nullptr) return;
  Elf* elf = file_->elf();
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf, &ehdr) == nullptr || ehdr.e_machine != EM_X86_64) return;

  // 1. Every stub of every PLT section, decoded. A separate debug file keeps the section
  //    headers but not the contents (SHT_NOBITS): nothing to decode there.
  struct Pending {
    uint64_t low, high;
    Decoded what;
  };
  std::vector<Pending> pending;
  for (std::string_view name : kPltSections) {
    Elf_Scn* scn = file_->section(name);
    GElf_Shdr shdr;
    if (scn == nullptr || gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_PROGBITS) {
      continue;
    }
    Elf_Data* data = elf_rawdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
    size_t size = std::min<uint64_t>(data->d_size, shdr.sh_size);
    size_t step = stub_size(shdr, bytes, size);
    for (size_t off = 0; off < size; off += step) {
      size_t n = std::min(step, size - off);
      Decoded d = decode_stub(bytes + off, n, shdr.sh_addr + off);
      if (d.kind != Decoded::none) {
        pending.push_back({shdr.sh_addr + off, shdr.sh_addr + off + n, d});
      }
    }
  }
  if (pending.empty()) return;

  // 2. Targets of the GOT slots the stubs jump through, from the dynamic relocations
  //    (.rela.plt JUMP_SLOT for .plt/.plt.sec, .rela.dyn GLOB_DAT for .plt.got), and
  //    .rela.plt in order for the stubs that give an index instead.
  std::vector<uint64_t> wanted;
  bool need_order = false;
  for (const Pending& p : pending) {
    if (p.what.kind == Decoded::slot) wanted.push_back(p.what.value);
    need_order |= p.what.kind == Decoded::index;
  }
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::vector<std::pair<uint64_t, Target>> by_slot;
  std::vector<Target> jmprel;
  Elf_Scn* rela_plt = need_order ? file_->section(".rela.plt") : nullptr;
  size_t rela_size = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_RELA ||
        (shdr.sh_flags & SHF_ALLOC) == 0) {
      continue;
    }
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || rela_size == 0) continue;
    Elf_Data* symbols = nullptr;
    size_t strings = 0;
    GElf_Shdr sym_shdr;
    if (Elf_Scn* sym_scn = elf_getscn(elf, shdr.sh_link);
        shdr.sh_link != 0 && sym_scn != nullptr && gelf_getshdr(sym_scn, &sym_shdr) != nullptr &&
        (sym_shdr.sh_type == SHT_DYNSYM || sym_shdr.sh_type == SHT_SYMTAB)) {
      symbols = elf_getdata(sym_scn, nullptr);
      strings = sym_shdr.sh_link;
    }
    bool in_order = scn == rela_plt;
    size_t count = data->d_size / rela_size;
    for (size_t i = 0; i < count; ++i) {
      GElf_Rela rela;
      if (gelf_getrela(data, static_cast<int>(i), &rela) == nullptr) break;
      bool want = std::binary_search(wanted.begin(), wanted.end(), rela.r_offset);
      if (!want && !in_order) continue;
      Target t = target_of(elf, rela, symbols, strings);
      if (want) by_slot.emplace_back(rela.r_offset, t);
      if (in_order) jmprel.push_back(t);
    }
  }
  std::stable_sort(by_slot.begin(), by_slot.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  // 3. The stubs whose target is known.
  for (const Pending& p : pending) {
    Target t;
    if (p.what.kind == Decoded::slot) {
      auto it = std::lower_bound(by_slot.begin(), by_slot.end(), p.what.value,
                                 [](const auto& e, uint64_t slot) { return e.first < slot; });
      if (it != by_slot.end() && it->first == p.what.value) t = it->second;
    } else if (p.what.value < jmprel.size()) {
      t = jmprel[p.what.value];
    }
    if (t.known()) stubs_.push_back({p.low, p.high, t.symbol, t.ifunc});
  }
  std::sort(stubs_.begin(), stubs_.end(),
            [](const Stub& a, const Stub& b) { return a.low < b.low; });
  name_ifuncs();
}

// An IRELATIVE slot holds the address of the ifunc's resolver, where the file's symbol
// tables have the STT_GNU_IFUNC symbol of the function (memcpy) among its aliases
// (__new_memcpy): the public-looking one names the stub. Without one (a stripped static
// program) Module names it by the symbol covering the resolver, if any.
void PltTable::name_ifuncs() {
  std::vector<std::pair<uint64_t, const char*>> best;  // resolver -> name
  for (const Stub& s : stubs_) {
    if (s.symbol == nullptr) best.emplace_back(s.ifunc, nullptr);
  }
  if (best.empty()) return;
  std::sort(best.begin(), best.end());
  best.erase(std::unique(best.begin(), best.end()), best.end());
  auto by_address = [](const std::pair<uint64_t, const char*>& e, uint64_t a) {
    return e.first < a;
  };
  // Fewer leading underscores, then global before weak before local (memcmp, not its
  // weak alias bcmp), then by name so that the choice does not depend on symbol order.
  auto rank = [](const char* name, unsigned bind) {
    unsigned order = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    return std::make_tuple(std::strspn(name, "_"), order, std::string_view(name));
  };
  std::vector<unsigned> best_bind(best.size());
  Elf* elf = file_->elf();
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr ||
        (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM)) {
      continue;
    }
    Elf_Data* data = elf_getdata(scn, nullptr);
    GElf_Sym sym;
    for (int i = 0; data != nullptr && gelf_getsym(data, i, &sym) != nullptr; ++i) {
      if (GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) continue;
      auto it = std::lower_bound(best.begin(), best.end(), sym.st_value, by_address);
      if (it == best.end() || it->first != sym.st_value) continue;
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      unsigned bind = GELF_ST_BIND(sym.st_info);
      size_t k = static_cast<size_t>(it - best.begin());
      if (it->second == nullptr || rank(name, bind) < rank(it->second, best_bind[k])) {
        it->second = name;
        best_bind[k] = bind;
      }
    }
  }
  for (Stub& s : stubs_) {
    if (s.symbol != nullptr) continue;
    auto it = std::lower_bound(best.begin(), best.end(), s.ifunc, by_address);
    if (it != best.end() && it->first == s.ifunc) s.symbol = it->second;
  }
}

}  // namespace cprof::symbolize
