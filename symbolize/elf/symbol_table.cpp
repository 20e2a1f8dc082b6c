#include "symbolize/elf/symbol_table.h"

#include <elfutils/libdwelf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace cprof::symbolize {

bool SymbolTable::add_section(const ElfFile& file, uint32_t type) {
  Elf* elf = file.elf();
  bool found = false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != type) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) continue;
    found = true;
    size_t count = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    const char* file_name = nullptr;  // local symbols follow their STT_FILE symbol
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
      int kind = GELF_ST_TYPE(sym.st_info);
      if (kind == STT_FILE) {
        file_name = elf_strptr(elf, shdr.sh_link, sym.st_name);
        continue;
      }
      if (kind != STT_FUNC && kind != STT_GNU_IFUNC && kind != STT_OBJECT) continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      bool local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
      entries_.push_back({sym.st_value, sym.st_size, name, local ? file_name : nullptr});
    }
  }
  return found;
}

void SymbolTable::add(const ElfFile& file, bool dynsym_too) {
  bool had_symtab = add_section(file, SHT_SYMTAB);
  if (!had_symtab || dynsym_too) add_section(file, SHT_DYNSYM);
}

void SymbolTable::finish() {
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    if (a.addr != b.addr) return a.addr < b.addr;
    return a.size > b.size;
  });
  // Aliases (C1/C2 constructors, weak/strong pairs) share an address; keep the first.
  auto last = std::unique(entries_.begin(), entries_.end(),
                          [](const Entry& a, const Entry& b) { return a.addr == b.addr; });
  entries_.erase(last, entries_.end());
}

const SymbolTable::Entry* SymbolTable::find(uint64_t addr) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), addr,
                             [](uint64_t a, const Entry& e) { return a < e.addr; });
  if (it == entries_.begin()) return nullptr;
  --it;
  if (it->size != 0 && addr >= it->addr + it->size) return nullptr;
  return &*it;
}

Result<std::unique_ptr<ElfFile>> open_gnu_debugdata(const ElfFile& file) {
  Elf_Scn* scn = file.section(".gnu_debugdata");
  if (scn == nullptr) return std::unique_ptr<ElfFile>();
  Elf_Data* data = elf_rawdata(scn, nullptr);
  if (data == nullptr || data->d_size == 0) return std::unique_ptr<ElfFile>();
  // dwelf_elf_begin decompresses xz from a descriptor, so hand it an anonymous file.
  int fd = memfd_create("gnu_debugdata", MFD_CLOEXEC);
  if (fd < 0) return Error{file.path() + ": .gnu_debugdata: memfd_create failed"};
  const char* p = static_cast<const char*>(data->d_buf);
  size_t left = data->d_size;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n <= 0) {
      close(fd);
      return Error{file.path() + ": .gnu_debugdata: cannot buffer section"};
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  lseek(fd, 0, SEEK_SET);
  Elf* elf = dwelf_elf_begin(fd);
  if (elf == nullptr || elf_kind(elf) != ELF_K_ELF) {
    if (elf != nullptr) elf_end(elf);
    close(fd);
    return Error{file.path() + ": .gnu_debugdata is not an xz-compressed ELF file"};
  }
  return ElfFile::adopt(elf, fd, file.path() + "[.gnu_debugdata]");
}

}  // namespace cprof::symbolize
