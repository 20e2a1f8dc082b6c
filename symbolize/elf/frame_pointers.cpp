#include "symbolize/elf/frame_pointers.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "symbolize/elf/symbol_table.h"

namespace cprof::symbolize {
namespace {

constexpr unsigned char kEndbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
constexpr unsigned char kPushRbp = 0x55;
constexpr unsigned char kMovRspRbp[] = {0x48, 0x89, 0xe5};
// GCC schedules other instructions between the push and the mov (alpha_work: push, pxor,
// mov $3, then mov %rsp,%rbp): the mov is looked for this far in.
constexpr size_t kPrologueBytes = 32;

// The file bytes at virtual address `addr` (length `n`), through the PT_LOAD that holds
// them; null when no loaded part of the file does.
const unsigned char* bytes_at(Elf* elf, const char* image, size_t image_size, uint64_t addr,
                              size_t n) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return nullptr;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_LOAD) continue;
    if (addr < ph.p_vaddr || addr + n > ph.p_vaddr + ph.p_filesz) continue;
    const uint64_t offset = ph.p_offset + (addr - ph.p_vaddr);
    if (offset + n > image_size) return nullptr;
    return reinterpret_cast<const unsigned char*>(image) + offset;
  }
  return nullptr;
}

}  // namespace

std::optional<FramePointerCount> count_frame_pointers(const ElfFile& file, size_t limit) {
  size_t image_size = 0;
  const char* image = elf_rawfile(file.elf(), &image_size);
  if (image == nullptr) return std::nullopt;
  SymbolTable symbols;
  symbols.add(file);
  symbols.finish();
  FramePointerCount out;
  for (const auto& s : symbols.entries()) {
    if (out.functions == limit) break;
    if (s.size < 16 || !file.is_executable_address(s.addr)) continue;
    const size_t n = std::min<uint64_t>(s.size, kPrologueBytes);
    const unsigned char* code = bytes_at(file.elf(), image, image_size, s.addr, n);
    if (code == nullptr) continue;
    ++out.functions;
    const unsigned char* end = code + n;
    if (std::memcmp(code, kEndbr64, sizeof kEndbr64) == 0) code += sizeof kEndbr64;
    if (*code != kPushRbp) continue;
    if (std::search(code + 1, end, std::begin(kMovRspRbp), std::end(kMovRspRbp)) != end) {
      ++out.with_frame_pointer;
    }
  }
  if (out.functions == 0) return std::nullopt;
  return out;
}

}  // namespace cprof::symbolize
