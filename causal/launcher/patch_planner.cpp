#include "causal/launcher/patch_planner.h"

#include <capstone/capstone.h>
#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "symbolize/elf/elf_file.h"

namespace cprof::causal {
namespace {

// A Capstone handle for x86-64 with instruction details, closed on scope exit.
class Decoder {
 public:
  Decoder() {
    ok_ = cs_open(CS_ARCH_X86, CS_MODE_64, &handle_) == CS_ERR_OK &&
          cs_option(handle_, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK;
  }
  ~Decoder() {
    if (handle_ != 0) cs_close(&handle_);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  bool ok() const { return ok_; }
  // Decodes all of `code` (from `address`); false when it stops short of the end.
  bool decode(std::span<const uint8_t> code, uint64_t address, std::vector<cs_insn>& out) {
    out.clear();
    cs_insn* insn = cs_malloc(handle_);
    const uint8_t* bytes = code.data();
    size_t size = code.size();
    uint64_t at = address;
    while (size > 0 && cs_disasm_iter(handle_, &bytes, &size, &at, insn)) {
      cs_insn copy = *insn;
      copy.detail = nullptr;
      out.push_back(copy);
      details_.push_back(*insn->detail);
    }
    cs_free(insn, 1);
    for (size_t i = 0; i < out.size(); ++i)
      out[i].detail = &details_[details_.size() - out.size() + i];
    return size == 0;
  }
  bool in_group(const cs_insn& insn, uint8_t group) const {
    return cs_insn_group(handle_, &insn, group);
  }

 private:
  csh handle_ = 0;
  bool ok_ = false;
  std::vector<cs_detail> details_;
};

// The bytes after the legacy prefixes a branch may carry (branch hints, bnd).
size_t opcode_at(const cs_insn& insn) {
  size_t i = 0;
  while (i < insn.size && (insn.bytes[i] == 0x2e || insn.bytes[i] == 0x3e ||
                           insn.bytes[i] == 0xf2 || insn.bytes[i] == 0x66)) {
    ++i;
  }
  return i;
}

// The immediate target of a direct branch or call; false for an indirect one.
bool direct_target(const cs_insn& insn, uint64_t& target) {
  const cs_x86& x86 = insn.detail->x86;
  if (x86.op_count != 1 || x86.operands[0].type != X86_OP_IMM) return false;
  target = static_cast<uint64_t>(x86.operands[0].imm);
  return true;
}

bool rip_relative(const cs_insn& insn) {
  const cs_x86& x86 = insn.detail->x86;
  for (uint8_t i = 0; i < x86.op_count; ++i) {
    if (x86.operands[i].type == X86_OP_MEM && x86.operands[i].mem.base == X86_REG_RIP) {
      return true;
    }
  }
  return false;
}

// How instruction `insn` of the window moves; nullopt and `why` when it cannot.
std::optional<PatchStep> step_for(const Decoder& decoder, const cs_insn& insn, bool last,
                                  uint64_t window_start, std::string& why) {
  PatchStep step;
  step.length = static_cast<uint8_t>(insn.size);
  const bool jumps = decoder.in_group(insn, CS_GRP_JUMP);
  const bool calls = decoder.in_group(insn, CS_GRP_CALL);
  const bool other_flow = decoder.in_group(insn, CS_GRP_RET) ||
                          decoder.in_group(insn, CS_GRP_INT) ||
                          decoder.in_group(insn, CS_GRP_IRET) || insn.id == X86_INS_SYSCALL;
  if (!last && (jumps || calls || other_flow)) {
    why = std::string("its instruction ") + insn.mnemonic + " leaves the line's first bytes";
    return std::nullopt;
  }
  if (other_flow && insn.id != X86_INS_RET) {
    why = std::string("it begins with ") + insn.mnemonic;
    return std::nullopt;
  }
  uint64_t target = 0;
  const bool direct = (jumps || calls) && direct_target(insn, target);
  if (calls) {
    const size_t op = opcode_at(insn);
    if (!direct || insn.bytes[op] != 0xe8) {
      why = "an indirect call at its start";  // copied, it would return into the trampoline
      return std::nullopt;
    }
    step.kind = PatchStep::Kind::call;
    step.target_delta = static_cast<int64_t>(target - window_start);
    return step;
  }
  if (jumps && direct) {
    const size_t op = opcode_at(insn);
    const uint8_t b0 = insn.bytes[op];
    const uint8_t b1 = op + 1 < insn.size ? insn.bytes[op + 1] : 0;
    step.target_delta = static_cast<int64_t>(target - window_start);
    if (b0 == 0xe9 || b0 == 0xeb) {
      step.kind = PatchStep::Kind::jump;
    } else if (b0 >= 0x70 && b0 <= 0x7f) {
      step.kind = PatchStep::Kind::branch;
      step.condition = b0 & 15;
    } else if (b0 == 0x0f && b1 >= 0x80 && b1 <= 0x8f) {
      step.kind = PatchStep::Kind::branch;
      step.condition = b1 & 15;
    } else {
      why = std::string("a ") + insn.mnemonic + " at its start";  // loop, jrcxz: no rel32 form
      return std::nullopt;
    }
    return step;
  }
  if (rip_relative(insn)) {
    const uint8_t at = insn.detail->x86.encoding.disp_offset;
    if (at == 0 || insn.detail->x86.encoding.disp_size != 4 || at + 4 > insn.size) {
      why = "a RIP-relative operand it cannot rebase";
      return std::nullopt;
    }
    step.kind = PatchStep::Kind::rip_data;
    step.disp_offset = at;
    return step;
  }
  return step;  // copied as it is (an indirect jump through a register or ret included)
}

struct FunctionCode {
  uint64_t start = 0;
  std::vector<uint8_t> bytes;
};

// The bytes of [start, start + size) from the file's executable sections.
bool read_code(Elf* elf, uint64_t start, uint64_t size, std::vector<uint8_t>& out) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_PROGBITS ||
        (shdr.sh_flags & SHF_EXECINSTR) == 0 || start < shdr.sh_addr ||
        start + size > shdr.sh_addr + shdr.sh_size) {
      continue;
    }
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr || data->d_size < shdr.sh_size) return false;
    const auto* bytes = static_cast<const uint8_t*>(data->d_buf) + (start - shdr.sh_addr);
    out.assign(bytes, bytes + size);
    return true;
  }
  return false;
}

// The function symbol holding `address`, and its .cold part where there is one.
bool find_function(const symbolize::ElfFile& file, uint64_t address, FunctionCode& function,
                   FunctionCode& cold) {
  Elf* elf = file.elf();
  for (const char* table : {".symtab", ".dynsym"}) {
    Elf_Scn* scn = file.section(table);
    GElf_Shdr shdr;
    if (scn == nullptr || gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    const size_t count = shdr.sh_size / shdr.sh_entsize;
    const auto symbol = [&](size_t i, GElf_Sym& sym) {
      return gelf_getsym(data, static_cast<int>(i), &sym) != nullptr && sym.st_size != 0 &&
             GELF_ST_TYPE(sym.st_info) == STT_FUNC;
    };
    std::string name;
    uint64_t size = 0;
    for (size_t i = 0; i < count && size == 0; ++i) {
      GElf_Sym sym;
      if (!symbol(i, sym) || address < sym.st_value || address >= sym.st_value + sym.st_size) {
        continue;
      }
      const char* n = elf_strptr(elf, shdr.sh_link, sym.st_name);
      name = n != nullptr ? n : "";
      function.start = sym.st_value;
      size = sym.st_size;
    }
    if (size == 0) continue;
    if (!read_code(elf, function.start, size, function.bytes)) return false;
    // GCC's hot/cold split: foo.cold jumps back into foo.
    const std::string cold_name = name + ".cold";
    for (size_t i = 0; i < count && !name.empty(); ++i) {
      GElf_Sym sym;
      if (!symbol(i, sym)) continue;
      const char* n = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (n == nullptr || std::strncmp(n, cold_name.c_str(), cold_name.size()) != 0) continue;
      cold.start = sym.st_value;
      read_code(elf, sym.st_value, sym.st_size, cold.bytes);
      break;
    }
    return true;
  }
  return false;
}

}  // namespace

std::optional<PlannedPatch> plan_patch_in(std::span<const uint8_t> code, uint64_t function_start,
                                          uint64_t address, std::span<const uint8_t> other_code,
                                          uint64_t other_start, std::string& why) {
  Decoder decoder;
  if (!decoder.ok()) {
    why = "Capstone has no x86-64 decoder";
    return std::nullopt;
  }
  std::vector<cs_insn> insns;
  if (!decoder.decode(code, function_start, insns)) {
    why = "its function does not decode as x86-64 instructions";
    return std::nullopt;
  }
  std::vector<uint64_t> targets;
  bool indirect_jumps = false;
  const auto collect = [&](const std::vector<cs_insn>& list) {
    for (const cs_insn& insn : list) {
      uint64_t target = 0;
      const bool flow = decoder.in_group(insn, CS_GRP_JUMP) || decoder.in_group(insn, CS_GRP_CALL);
      if (!flow) continue;
      if (direct_target(insn, target)) {
        targets.push_back(target);
      } else if (decoder.in_group(insn, CS_GRP_JUMP)) {
        indirect_jumps = true;
      }
    }
  };
  collect(insns);
  if (!other_code.empty()) {
    Decoder other_decoder;
    std::vector<cs_insn> other;
    other_decoder.decode(other_code, other_start, other);  // what decodes is checked
    collect(other);
  }
  auto at = std::find_if(insns.begin(), insns.end(),
                         [&](const cs_insn& i) { return i.address == address; });
  if (at == insns.end()) {
    why = "its address is not an instruction of its function as decoded";
    return std::nullopt;
  }
  if (at->id == X86_INS_ENDBR64 || at->id == X86_INS_ENDBR32) ++at;
  PlannedPatch out;
  out.site = at == insns.end() ? address : at->address;
  size_t length = 0;
  for (auto it = at; it != insns.end() && length < kPatchJumpBytes; ++it) {
    length += it->size;
    const bool last = length >= kPatchJumpBytes;
    auto step = step_for(decoder, *it, last, out.site, why);
    if (!step) return std::nullopt;
    out.plan.steps.push_back(*step);
    out.plan.bytes.insert(out.plan.bytes.end(), it->bytes, it->bytes + it->size);
  }
  if (length < kPatchJumpBytes) {
    why = "its function ends within 5 bytes of it";
    return std::nullopt;
  }
  for (const uint64_t t : targets) {
    if (t > out.site && t < out.site + length) {
      why = "a branch lands within its first 5 bytes";
      return std::nullopt;
    }
  }
  if (indirect_jumps && out.plan.steps.size() > 1) {
    why = "its first instruction is under 5 bytes and its function jumps through a table";
    return std::nullopt;
  }
  return out;
}

void drop_overlapping_plans(std::vector<PlacePlan>& places) {
  // [first byte that must stay, end) of each place: its window where it has one, else
  // its own first byte (where a kernel counter goes).
  const auto span = [](const PlacePlan& p) {
    const uint64_t start = std::min(p.address, p.planned ? p.planned->site : p.address);
    const uint64_t end = p.planned ? p.planned->site + p.planned->plan.bytes.size() : p.address + 1;
    return std::pair{start, end};
  };
  std::vector<bool> drop(places.size(), false);
  for (size_t i = 0; i < places.size(); ++i) {
    for (size_t j = i + 1; j < places.size(); ++j) {
      if (places[i].module != places[j].module) continue;
      const auto [a0, a1] = span(places[i]);
      const auto [b0, b1] = span(places[j]);
      if (a0 < b1 && b0 < a1) drop[i] = drop[j] = true;
    }
  }
  for (size_t i = 0; i < places.size(); ++i) {
    if (!drop[i] || !places[i].planned) continue;
    places[i].planned.reset();
    places[i].why = "its first bytes hold another --progress place's";
  }
}

std::optional<PlannedPatch> plan_patch(const std::string& elf_path, uint64_t address,
                                       std::string& why) {
  auto file = symbolize::ElfFile::open(elf_path);
  if (!file.ok()) {
    why = file.error().message;
    return std::nullopt;
  }
  GElf_Ehdr ehdr;
  if (gelf_getehdr((*file)->elf(), &ehdr) == nullptr || ehdr.e_machine != EM_X86_64) {
    why = "the program is not x86-64";
    return std::nullopt;
  }
  FunctionCode function;
  FunctionCode cold;
  if (!find_function(**file, address, function, cold)) {
    why = "no function symbol holds it";
    return std::nullopt;
  }
  return plan_patch_in(function.bytes, function.start, address, cold.bytes, cold.start, why);
}

}  // namespace cprof::causal
