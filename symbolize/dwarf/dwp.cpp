#include "symbolize/dwarf/dwp.h"

#include <dwarf.h>
#include <elf.h>

#include <cstring>

namespace cprof::symbolize {
namespace {

// Section contents, decompressed first when -gz compressed them.
std::string_view section_bytes(const ElfFile& file, const char* name) {
  Elf_Scn* scn = file.section(name);
  if (scn == nullptr) return {};
  GElf_Shdr shdr;
  if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS) return {};
  if ((shdr.sh_flags & SHF_COMPRESSED) != 0 && elf_compress(scn, 0, 0) < 0) return {};
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr || data->d_buf == nullptr) return {};
  return {static_cast<const char*>(data->d_buf), data->d_size};
}

uint32_t u32(std::string_view s, size_t at) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}
uint64_t u64(std::string_view s, size_t at) {
  uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}

// Column ids of the unit index -> section names (DWARF 5 table 7.1, GNU version 2).
const char* column_name(uint32_t version, uint32_t id) {
  if (version == 5) {
    switch (id) {
      case 1: return ".debug_info.dwo";
      case 3: return ".debug_abbrev.dwo";
      case 4: return ".debug_line.dwo";
      case 5: return ".debug_loclists.dwo";
      case 6: return ".debug_str_offsets.dwo";
      case 7: return ".debug_macro.dwo";
      case 8: return ".debug_rnglists.dwo";
    }
  } else {
    switch (id) {
      case 1: return ".debug_info.dwo";
      case 3: return ".debug_abbrev.dwo";
      case 4: return ".debug_line.dwo";
      case 5: return ".debug_loc.dwo";
      case 6: return ".debug_str_offsets.dwo";
      case 7: return ".debug_macinfo.dwo";
      case 8: return ".debug_macro.dwo";
    }
  }
  return nullptr;  // type units and unknown columns are not needed
}

// The image is a plain (not .dwo) file: libdw 0.188 ignores .debug_addr in a .dwo file,
// and the split unit needs the skeleton's addresses.
std::string plain_name(const std::string& dwo_name) {
  return dwo_name.ends_with(".dwo") ? dwo_name.substr(0, dwo_name.size() - 4) : dwo_name;
}

// Writes a minimal ELF64 relocatable file holding `sections`, for libelf to open.
std::string make_elf(uint16_t machine, const std::vector<std::pair<std::string, std::string_view>>& sections) {
  std::string image(sizeof(Elf64_Ehdr), '\0');
  std::vector<Elf64_Shdr> headers(1);  // index 0: the null section
  std::string names(1, '\0');
  for (const auto& [name, bytes] : sections) {
    Elf64_Shdr sh{};
    sh.sh_name = static_cast<Elf64_Word>(names.size());
    names += name;
    names += '\0';
    sh.sh_type = SHT_PROGBITS;
    sh.sh_offset = image.size();
    sh.sh_size = bytes.size();
    sh.sh_addralign = 1;
    image.append(bytes);
    headers.push_back(sh);
  }
  Elf64_Shdr strtab{};
  strtab.sh_name = static_cast<Elf64_Word>(names.size());
  names += ".shstrtab";
  names += '\0';
  strtab.sh_type = SHT_STRTAB;
  strtab.sh_offset = image.size();
  strtab.sh_size = names.size();
  strtab.sh_addralign = 1;
  image += names;
  headers.push_back(strtab);
  image.resize((image.size() + 7) & ~size_t{7});

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_REL;
  eh.e_machine = machine;
  eh.e_version = EV_CURRENT;
  eh.e_shoff = image.size();
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<Elf64_Half>(headers.size());
  eh.e_shstrndx = static_cast<Elf64_Half>(headers.size() - 1);
  std::memcpy(image.data(), &eh, sizeof eh);
  image.append(reinterpret_cast<const char*>(headers.data()), headers.size() * sizeof(Elf64_Shdr));
  return image;
}

}  // namespace

DwoUnit::~DwoUnit() {
  if (dwarf != nullptr) dwarf_end(dwarf);
  if (elf != nullptr) elf_end(elf);
}

Result<std::unique_ptr<DwpFile>> DwpFile::open(const std::string& path) {
  auto file = ElfFile::open(path);
  if (!file) return file.error();
  std::unique_ptr<DwpFile> dwp(new DwpFile(std::move(file).value()));
  if (auto ok = dwp->read_index(); !ok) return ok.error();
  return dwp;
}

Result<bool> DwpFile::read_index() {
  std::string_view index = section_bytes(*file_, ".debug_cu_index");
  std::string where = file_->path() + ": .debug_cu_index";
  if (index.size() < 16) return Error{where + ": missing or truncated"};
  index_version_ = u32(index, 0) & 0xffff;
  if (index_version_ != 5 && index_version_ != 2) {
    return Error{where + ": unknown version " + std::to_string(index_version_)};
  }
  uint64_t columns = u32(index, 4), count = u32(index, 8), slots = u32(index, 12);
  uint64_t table = 16 + slots * 12;  // hash table: slots x (8-byte id + 4-byte row)
  uint64_t need = table + columns * 4 + 2 * count * columns * 4;
  if (columns == 0 || columns > 16 || need > index.size()) return Error{where + ": corrupt"};
  std::vector<const char*> names(columns);
  for (uint64_t c = 0; c < columns; ++c) names[c] = column_name(index_version_, u32(index, table + c * 4));
  uint64_t offsets = table + columns * 4, sizes = offsets + count * columns * 4;
  for (uint64_t s = 0; s < slots; ++s) {
    uint64_t id = u64(index, 16 + s * 8);
    uint32_t row = u32(index, 16 + slots * 8 + s * 4);
    if (row == 0) continue;  // empty slot
    if (row > count) return Error{where + ": row " + std::to_string(row) + " out of range"};
    auto& unit = units_[id];
    for (uint64_t c = 0; c < columns; ++c) {
      if (names[c] == nullptr) continue;
      uint64_t at = (row - 1) * columns * 4 + c * 4;
      unit[names[c]] = {u32(index, offsets + at), u32(index, sizes + at)};
    }
  }
  return true;
}

Result<std::unique_ptr<DwoUnit>> DwpFile::unit(const SkeletonBases& skel,
                                               const ElfFile& skeleton_file) {
  auto found = units_.find(skel.dwo_id);
  if (found == units_.end()) return Error{path() + ": no unit with the skeleton's DWO id"};
  std::vector<std::pair<std::string, std::string_view>> sections;
  for (const auto& [name, c] : found->second) {
    std::string_view all = section_bytes(*file_, name.c_str());
    if (c.offset > all.size() || c.size > all.size() - c.offset) {
      return Error{path() + ": " + name + " contribution out of range"};
    }
    sections.emplace_back(plain_name(name), all.substr(c.offset, c.size));
  }
  sections.emplace_back(".debug_str", section_bytes(*file_, ".debug_str.dwo"));
  // Alone, the split unit's bases are 0: hand it the skeleton's slices from its bases.
  std::string_view addr = section_bytes(skeleton_file, ".debug_addr");
  if (skel.addr_base <= addr.size()) sections.emplace_back(".debug_addr", addr.substr(skel.addr_base));
  if (skel.version < 5) {
    std::string_view ranges = section_bytes(skeleton_file, ".debug_ranges");
    if (skel.ranges_base <= ranges.size()) {
      sections.emplace_back(".debug_ranges", ranges.substr(skel.ranges_base));
    }
  }
  GElf_Ehdr eh;
  uint16_t machine = gelf_getehdr(skeleton_file.elf(), &eh) != nullptr ? eh.e_machine : EM_X86_64;

  auto unit = std::make_unique<DwoUnit>();
  unit->image = make_elf(machine, sections);
  unit->elf = elf_memory(unit->image.data(), unit->image.size());
  if (unit->elf == nullptr) return Error{path() + ": cannot build unit image: " + elf_errmsg(-1)};
  unit->dwarf = dwarf_begin_elf(unit->elf, DWARF_C_READ, nullptr);
  if (unit->dwarf == nullptr) return Error{path() + ": unit's DWARF unreadable: " + dwarf_errmsg(-1)};
  Dwarf_CU* cu = nullptr;
  Dwarf_Die die;
  uint8_t type = 0;
  if (dwarf_get_units(unit->dwarf, nullptr, &cu, nullptr, &type, &die, nullptr) != 0) {
    return Error{path() + ": unit's DWARF unreadable: " + dwarf_errmsg(-1)};
  }
  unit->die = die;
  return unit;
}

}  // namespace cprof::symbolize
