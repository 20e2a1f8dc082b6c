#include "symbolize/elf/unwind_functions.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace cprof::symbolize {
namespace {

constexpr uint8_t kOmit = 0xff;  // DW_EH_PE_omit

// The size of a value in pointer encoding `enc` (its low four bits), or 0 if unknown.
size_t encoded_size(uint8_t enc) {
  switch (enc & 0x0f) {
    case DW_EH_PE_absptr: return 8;  // 64-bit files only: the report symbolizes x86-64
    case DW_EH_PE_udata2:
    case DW_EH_PE_sdata2: return 2;
    case DW_EH_PE_udata4:
    case DW_EH_PE_sdata4: return 4;
    case DW_EH_PE_udata8:
    case DW_EH_PE_sdata8: return 8;
    default: return 0;
  }
}

// The value at p in encoding `enc`'s format, sign-extended where it is signed.
uint64_t read_value(const unsigned char* p, uint8_t enc) {
  switch (enc & 0x0f) {
    case DW_EH_PE_udata2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case DW_EH_PE_sdata2: { int16_t v; std::memcpy(&v, p, 2); return static_cast<uint64_t>(int64_t{v}); }
    case DW_EH_PE_udata4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case DW_EH_PE_sdata4: { int32_t v; std::memcpy(&v, p, 4); return static_cast<uint64_t>(int64_t{v}); }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

// The FDE pointer encoding of a CIE (its 'R' augmentation), absptr without one; nullopt
// for augmentations this reader does not know (then its FDEs are skipped).
std::optional<uint8_t> fde_encoding(const Dwarf_CIE& cie) {
  const std::string_view aug = cie.augmentation != nullptr ? cie.augmentation : "";
  if (aug.empty()) return DW_EH_PE_absptr;
  if (aug.front() != 'z') return std::nullopt;
  const unsigned char* p = cie.augmentation_data;
  const unsigned char* end = p + cie.augmentation_data_size;
  for (const char c : aug.substr(1)) {
    switch (c) {
      case 'R':
        if (p >= end) return std::nullopt;
        return *p;
      case 'L':
        ++p;
        break;
      case 'P': {
        if (p >= end) return std::nullopt;
        const uint8_t enc = *p++;
        const size_t size = encoded_size(enc);
        if (size == 0) return std::nullopt;
        p += size;
        break;
      }
      case 'S':
      case 'B':
        break;
      default:
        return std::nullopt;
    }
  }
  return DW_EH_PE_absptr;
}

}  // namespace

void UnwindFunctions::read() {
  read_ = true;
  if (file_ == nullptr) return;
  Elf_Scn* scn = file_->section(".eh_frame");
  if (scn == nullptr) return;
  GElf_Shdr shdr;
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (gelf_getshdr(scn, &shdr) == nullptr || data == nullptr || data->d_buf == nullptr) return;
  const unsigned char* ident = reinterpret_cast<const unsigned char*>(elf_getident(file_->elf(), nullptr));
  if (ident == nullptr) return;
  const auto* base = static_cast<const unsigned char*>(data->d_buf);
  std::unordered_map<Dwarf_Off, std::optional<uint8_t>> encodings;  // CIE offset -> 'R'
  Dwarf_Off offset = 0;
  Dwarf_Off next = 0;
  Dwarf_CFI_Entry entry;
  while (dwarf_next_cfi(ident, data, true, offset, &next, &entry) == 0) {
    if (dwarf_cfi_cie_p(&entry)) {
      encodings[offset] = fde_encoding(entry.cie);
    } else if (auto it = encodings.find(entry.fde.CIE_pointer);
               it != encodings.end() && it->second && (*it->second & 0x70) <= DW_EH_PE_pcrel) {
      // Initial location, then address range, both in the CIE's format; the location may
      // be relative to its own address (pcrel), the range never is.
      const uint8_t enc = *it->second;
      const size_t size = encoded_size(enc);
      const unsigned char* p = entry.fde.start;
      if (size != 0 && p + 2 * size <= entry.fde.end) {
        uint64_t start = read_value(p, enc);
        if ((enc & 0x70) == DW_EH_PE_pcrel) start += shdr.sh_addr + static_cast<uint64_t>(p - base);
        const uint64_t length = read_value(p + size, enc & 0x0f);
        if (length > 0) functions_.push_back({start, start + length});
      }
    }
    offset = next;
  }
  std::sort(functions_.begin(), functions_.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.low < b.low; });
}

const AddressRange* UnwindFunctions::find(uint64_t addr) {
  if (!read_) read();
  auto it = std::upper_bound(functions_.begin(), functions_.end(), addr,
                             [](uint64_t a, const AddressRange& r) { return a < r.low; });
  if (it == functions_.begin()) return nullptr;
  --it;
  return addr < it->high ? &*it : nullptr;
}

}  // namespace cprof::symbolize
