// build_cfi_table(): interprets a module's .eh_frame CIEs and FDEs (DWARF CFI, the
// "call frame instructions" of DWARF 5 section 6.4 with the LSB .eh_frame encodings) into
// CfiRows. Runs in a normal context; every read stays inside the module's mapped segment
// that holds .eh_frame, so a malformed FDE is skipped rather than read past.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "sampler/unwind/cfi_table.h"
#include "sampler/unwind/module_table.h"

namespace cprof::sampler {
namespace {

// DWARF register numbers on x86-64 (System V psABI, figure 3.36).
constexpr int kRax = 0, kRdx = 1, kRcx = 2, kRbx = 3, kRsi = 4, kRdi = 5, kRbp = 6, kRsp = 7;
constexpr int kR8 = 8, kR11 = 11, kR12 = 12, kR13 = 13, kR14 = 14, kR15 = 15, kRa = 16;
constexpr int kNumRegs = 17;  // what libunwind tracks too (DWARF_NUM_PRESERVED_REGS)

// Bounds-checked reader over [p, end) of this process's memory.
class Reader {
 public:
  Reader(uint64_t p, uint64_t end) : p_(p), end_(end) {}
  bool ok() const { return ok_; }
  uint64_t pos() const { return p_; }
  void seek(uint64_t p) {
    if (p > end_) ok_ = false;
    p_ = std::min(p, end_);
  }
  uint8_t u8() { return fixed<uint8_t>(); }
  uint16_t u16() { return fixed<uint16_t>(); }
  uint32_t u32() { return fixed<uint32_t>(); }
  uint64_t u64() { return fixed<uint64_t>(); }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      const uint8_t b = u8();
      if (!ok_) return 0;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
      b = u8();
      if (!ok_) return 0;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  // A DW_EH_PE_* encoded value. Only absolute and pc-relative values are meaningful in
  // .eh_frame on x86-64; `value_needed` = false just skips over any other kind.
  bool encoded(uint8_t enc, uint64_t* out, bool value_needed = true) {
    if (enc == 0xff) return false;  // DW_EH_PE_omit
    const uint64_t field = p_;
    uint64_t v;
    switch (enc & 0x0f) {
      case 0x00:
        v = u64();
        break;  // absptr
      case 0x01:
        v = uleb();
        break;  // uleb128
      case 0x02:
        v = u16();
        break;  // udata2
      case 0x03:
        v = u32();
        break;  // udata4
      case 0x04:
        v = u64();
        break;  // udata8
      case 0x09:
        v = static_cast<uint64_t>(sleb());
        break;  // sleb128
      case 0x0a:
        v = static_cast<uint64_t>(static_cast<int16_t>(u16()));
        break;  // sdata2
      case 0x0b:
        v = static_cast<uint64_t>(static_cast<int32_t>(u32()));
        break;  // sdata4
      case 0x0c:
        v = u64();
        break;  // sdata8
      default:
        ok_ = false;
        return false;
    }
    if (!ok_) return false;
    switch (enc & 0x70) {
      case 0x00:
        break;
      case 0x10:
        v += field;
        break;  // pcrel
      default:
        if (value_needed) return false;
    }
    *out = v;
    return true;
  }

 private:
  template <class T>
  T fixed() {
    T v{};
    if (!ok_ || end_ - p_ < sizeof(T)) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, reinterpret_cast<const void*>(p_), sizeof v);
    p_ += sizeof v;
    return v;
  }
  uint64_t p_;
  uint64_t end_;
  bool ok_ = true;
};

struct Cie {
  bool ok = false;
  uint64_t code_align = 1;
  int64_t data_align = -8;
  uint64_t ra_reg = kRa;
  uint8_t fde_enc = 0;     // DW_EH_PE_absptr unless 'R' says otherwise
  bool augmented = false;  // 'z': FDEs carry an augmentation-data length
  bool signal = false;     // 'S': a signal trampoline; libunwind treats it specially
  uint64_t insns = 0, insns_end = 0;
};

enum class RegKind : uint8_t { kSame, kUndefined, kOffset, kOther };
struct RegRule {
  RegKind kind = RegKind::kSame;
  int64_t offset = 0;
};
enum class CfaKind : uint8_t { kReg, kPlt, kExpression };

struct State {
  CfaKind cfa_kind = CfaKind::kReg;
  uint64_t cfa_reg = kRsp;
  int64_t cfa_offset = 8;
  bool unknown = false;   // an opcode we do not know: the rest of the FDE is complex
  bool high_reg = false;  // a rule for a register libunwind does not track (it fails there)
  RegRule regs[kNumRegs];
};

Cie parse_cie(uint64_t at, uint64_t seg_end) {
  Cie cie;
  Reader r(at, seg_end);
  uint64_t len = r.u32();
  if (len == 0xffffffff) len = r.u64();
  const uint64_t body = r.pos();
  if (!r.ok() || len > seg_end - body) return cie;
  const uint64_t end = body + len;
  Reader c(body, end);
  const uint64_t id = len == 0 ? 1 : c.u32();
  if (id != 0) return cie;  // not a CIE
  const uint8_t version = c.u8();
  if (version != 1 && version != 3 && version != 4) return cie;
  char aug[16];
  size_t alen = 0;
  for (char ch; (ch = static_cast<char>(c.u8())) != '\0' && c.ok();) {
    if (alen + 1 >= sizeof aug) return cie;
    aug[alen++] = ch;
  }
  aug[alen] = '\0';
  if (version == 4) {
    if (c.u8() != 8 || c.u8() != 0) return cie;  // address_size, segment_selector_size
  }
  cie.code_align = c.uleb();
  cie.data_align = c.sleb();
  cie.ra_reg = version == 1 ? c.u8() : c.uleb();
  if (alen > 0) {
    if (aug[0] != 'z') return cie;  // "eh" and other pre-'z' forms: not supported
    cie.augmented = true;
    const uint64_t data_len = c.uleb();
    const uint64_t data_end = c.pos() + data_len;
    for (size_t i = 1; i < alen && c.ok(); ++i) {
      uint64_t ignored;
      switch (aug[i]) {
        case 'R':
          cie.fde_enc = c.u8();
          break;
        case 'P':
          c.encoded(c.u8(), &ignored, false);
          break;
        case 'L':
          c.u8();
          break;
        case 'S':
          cie.signal = true;
          break;
        default:
          i = alen;
          break;  // unknown: the length lets us skip the rest
      }
    }
    c.seek(data_end);
  }
  if (!c.ok() || cie.code_align == 0) return cie;
  cie.insns = c.pos();
  cie.insns_end = end;
  cie.ok = true;
  return cie;
}

// The CFA expression ld writes for lazy-binding .plt entries:
//   DW_OP_breg7 (rsp) 8; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11 (or 10);
//   DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
// i.e. rsp + 8, plus 8 once the entry's `push` has run. Returns the threshold or 0.
uint8_t plt_threshold(uint64_t expr, uint64_t len) {
  static constexpr uint8_t kHead[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a};
  static constexpr uint8_t kTail[] = {0x2a, 0x33, 0x24, 0x22};
  if (len != sizeof kHead + 1 + sizeof kTail) return 0;
  const auto* p = reinterpret_cast<const uint8_t*>(expr);
  if (std::memcmp(p, kHead, sizeof kHead) != 0) return 0;
  if (std::memcmp(p + sizeof kHead + 1, kTail, sizeof kTail) != 0) return 0;
  const uint8_t lit = p[sizeof kHead];
  return lit >= 0x30 && lit <= 0x4f ? static_cast<uint8_t>(lit - 0x30) : 0;  // DW_OP_litN
}

CfiRow make_row(const State& s) {
  CfiRow row;
  row.rule = CfiRule::kComplex;
  if (s.regs[kRa].kind == RegKind::kUndefined) {
    row.rule = CfiRule::kOutermost;
    return row;
  }
  if (s.unknown || s.high_reg) return row;
  const RegRule& ra = s.regs[kRa];
  if (ra.kind != RegKind::kOffset || ra.offset != -8) return row;
  if (s.regs[kRsp].kind != RegKind::kSame) return row;
  for (int reg : {kRax, kRdx, kRcx, kRsi, kRdi}) {
    if (s.regs[reg].kind == RegKind::kOffset || s.regs[reg].kind == RegKind::kOther) return row;
  }
  for (int reg = kR8; reg <= kR11; ++reg) {
    if (s.regs[reg].kind == RegKind::kOffset || s.regs[reg].kind == RegKind::kOther) return row;
  }
  static constexpr int kSlotReg[kSlotCount] = {kRbp, kRbx, kR12, kR13, kR14, kR15};
  for (int slot = 0; slot < kSlotCount; ++slot) {
    const RegRule& rr = s.regs[kSlotReg[slot]];
    if (rr.kind == RegKind::kSame) continue;
    if (rr.kind != RegKind::kOffset || rr.offset % 8 != 0 || rr.offset >= 0 ||
        rr.offset < int64_t{-128} * 8) {
      return row;
    }
    row.saved[slot] = static_cast<int8_t>(rr.offset / 8);
  }
  switch (s.cfa_kind) {
    case CfaKind::kExpression:
      return row;
    case CfaKind::kPlt:
      row.cfa_offset = static_cast<int32_t>(s.cfa_offset);
      row.rule = CfiRule::kCfaPlt;
      return row;
    case CfaKind::kReg:
      if (s.cfa_offset < INT32_MIN || s.cfa_offset > INT32_MAX) return row;
      if (s.cfa_reg != kRsp && s.cfa_reg != kRbp) return row;
      row.cfa_offset = static_cast<int32_t>(s.cfa_offset);
      row.rule = s.cfa_reg == kRsp ? CfiRule::kCfaRsp : CfiRule::kCfaRbp;
      return row;
  }
  return row;
}

// Appends the rows of one FDE to `out`.
class FdeBuilder {
 public:
  FdeBuilder(const Cie& cie, uint64_t base, std::vector<CfiRow>& out)
      : cie_(cie), base_(base), out_(out) {}

  // Runs the CIE's initial instructions, then the FDE's over [pc_begin, pc_end).
  void run(uint64_t insns, uint64_t insns_end, uint64_t pc_begin, uint64_t pc_end,
           uint64_t seg_end) {
    loc_ = pc_begin;
    end_ = pc_end;
    interpret(cie_.insns, std::min(cie_.insns_end, seg_end), /*in_cie=*/true);
    initial_ = state_;
    interpret(insns, insns_end, /*in_cie=*/false);
    if (loc_ < end_) emit();
    CfiRow gap;
    gap.pc = static_cast<uint32_t>(end_ - base_);
    gap.rule = CfiRule::kNoCfi;
    gap.flags = CfiRow::kFdeBoundary;
    out_.push_back(gap);
  }

 private:
  void emit() {
    CfiRow row = make_row(state_);
    if (cie_.signal) row.rule = CfiRule::kComplex;
    row.pc = static_cast<uint32_t>(loc_ - base_);
    if (!emitted_) {
      row.flags = CfiRow::kFdeBoundary;
      out_.push_back(row);
      emitted_ = true;
    } else if (out_.back().pc == row.pc) {
      row.flags = out_.back().flags;  // advance by 0: the later state wins
      out_.back() = row;
    } else if (!out_.back().same_unwind(row)) {
      out_.push_back(row);
    }
  }

  void advance(uint64_t delta) {
    if (loc_ < end_) emit();
    loc_ += delta * cie_.code_align;
  }

  RegRule* reg(uint64_t r) {
    if (r < kNumRegs) return &state_.regs[r];
    state_.high_reg = true;
    return &scratch_;
  }

  void interpret(uint64_t p, uint64_t end, bool in_cie) {
    Reader r(p, end);
    const int64_t da = cie_.data_align;
    while (r.ok() && r.pos() < end && !state_.unknown && loc_ < end_) {
      const uint8_t op = r.u8();
      const uint8_t low = op & 0x3f;
      switch (op >> 6) {
        case 1:
          if (!in_cie) advance(low);
          continue;
        case 2:
          *reg(low) = {RegKind::kOffset, static_cast<int64_t>(r.uleb()) * da};
          continue;
        case 3:
          *reg(low) = low < kNumRegs ? initial_.regs[low] : RegRule{};
          continue;
        default:
          break;
      }
      uint64_t a, b;
      switch (op) {
        case 0x00:
          break;    // nop
        case 0x01:  // set_loc
          if (!r.encoded(cie_.fde_enc, &a) || a < loc_) {
            state_.unknown = true;
            break;
          }
          if (!in_cie) {
            advance(0);
            loc_ = a;
          }
          break;
        case 0x02:
          a = r.u8();
          if (!in_cie) advance(a);
          break;
        case 0x03:
          a = r.u16();
          if (!in_cie) advance(a);
          break;
        case 0x04:
          a = r.u32();
          if (!in_cie) advance(a);
          break;
        case 0x05:
          a = r.uleb();
          *reg(a) = {RegKind::kOffset, static_cast<int64_t>(r.uleb()) * da};
          break;
        case 0x06:
          a = r.uleb();
          *reg(a) = a < kNumRegs ? initial_.regs[a] : RegRule{};
          break;
        case 0x07:
          a = r.uleb();
          *reg(a) = {RegKind::kUndefined, 0};
          break;
        case 0x08:
          a = r.uleb();
          *reg(a) = {RegKind::kSame, 0};
          break;
        case 0x09:
          a = r.uleb();
          r.uleb();
          *reg(a) = {RegKind::kOther, 0};
          break;
        case 0x0a:
          stack_.push_back(state_);
          break;      // remember_state
        case 0x0b: {  // restore_state: every rule, the CFA's included (as libgcc, libunwind)
          if (stack_.empty()) {
            state_.unknown = true;
            break;
          }
          const bool high = state_.high_reg;
          state_ = stack_.back();
          state_.high_reg = state_.high_reg || high;
          stack_.pop_back();
          break;
        }
        case 0x0c:
          state_.cfa_kind = CfaKind::kReg;
          state_.cfa_reg = r.uleb();
          state_.cfa_offset = static_cast<int64_t>(r.uleb());
          break;
        case 0x0d:
          state_.cfa_kind = CfaKind::kReg;
          state_.cfa_reg = r.uleb();
          break;
        case 0x0e:
          state_.cfa_offset = static_cast<int64_t>(r.uleb());
          break;
        case 0x0f: {
          a = r.uleb();
          const uint64_t expr = r.pos();
          r.seek(expr + a);
          if (!r.ok()) break;
          const uint8_t thr = plt_threshold(expr, a);
          state_.cfa_kind = thr != 0 ? CfaKind::kPlt : CfaKind::kExpression;
          state_.cfa_offset = thr;
          break;
        }
        case 0x10:
        case 0x16:  // expression, val_expression
          a = r.uleb();
          b = r.uleb();
          r.seek(r.pos() + b);
          *reg(a) = {RegKind::kOther, 0};
          break;
        case 0x11:
          a = r.uleb();
          *reg(a) = {RegKind::kOffset, r.sleb() * da};
          break;
        case 0x12:
          state_.cfa_kind = CfaKind::kReg;
          state_.cfa_reg = r.uleb();
          state_.cfa_offset = r.sleb() * da;
          break;
        case 0x13:
          state_.cfa_offset = r.sleb() * da;
          break;
        case 0x14:
        case 0x15:
          a = r.uleb();
          r.uleb();
          *reg(a) = {RegKind::kOther, 0};
          break;
        case 0x2e:
          r.uleb();
          break;    // GNU_args_size: only matters for landing pads
        case 0x2f:  // GNU_negative_offset_extended
          a = r.uleb();
          *reg(a) = {RegKind::kOffset, -static_cast<int64_t>(r.uleb()) * da};
          break;
        default:
          state_.unknown = true;
          break;
      }
    }
    if (!r.ok()) state_.unknown = true;
  }

  const Cie& cie_;
  uint64_t base_;
  std::vector<CfiRow>& out_;
  uint64_t loc_ = 0, end_ = 0;
  bool emitted_ = false;
  State state_, initial_;
  RegRule scratch_;
  std::vector<State> stack_;
};

// The end of the mapped segment that holds both .eh_frame and the header's table, or 0
// if there is no usable table.
uint64_t eh_frame_segment_end(const Module& m) {
  if (m.eh.table == 0 || m.eh.fde_count == 0 || m.eh.eh_frame == 0) return 0;
  // .eh_frame and the header table lie in the read-only segment that holds them.
  uint64_t seg_end = 0;
  for (const AddressRange& r : m.mapped) {
    if (r.contains(m.eh.eh_frame) && r.contains(m.eh.table)) seg_end = r.end;
  }
  if (seg_end == 0 || m.eh.fde_count > (seg_end - m.eh.table) / 8) return 0;
  return seg_end;
}

}  // namespace

uint64_t eh_frame_size(const Module& m) {
  const uint64_t seg_end = eh_frame_segment_end(m);
  if (seg_end == 0) return 0;
  uint64_t last = 0;
  for (uint64_t i = 0; i < m.eh.fde_count; ++i) {
    int32_t fde_rel;
    std::memcpy(&fde_rel, reinterpret_cast<const void*>(m.eh.table + 8 * i + 4), sizeof fde_rel);
    const uint64_t fde = m.eh.hdr + static_cast<uint64_t>(static_cast<int64_t>(fde_rel));
    if (fde >= m.eh.eh_frame && fde < seg_end) last = std::max(last, fde);
  }
  if (last == 0) return 0;
  Reader r(last, seg_end);
  uint64_t len = r.u32();
  if (len == 0xffffffff) len = r.u64();
  if (!r.ok() || len > seg_end - r.pos()) return seg_end - m.eh.eh_frame;
  return r.pos() + len - m.eh.eh_frame;
}

std::shared_ptr<const CfiTable> build_cfi_table(const Module& m) {
  const uint64_t seg_end = eh_frame_segment_end(m);
  if (seg_end == 0) return nullptr;

  const uint64_t base = m.load_bias;
  std::unordered_map<uint64_t, Cie> cies;
  std::vector<CfiRow> rows;
  rows.reserve(m.eh.fde_count * 4);
  for (uint64_t i = 0; i < m.eh.fde_count; ++i) {
    int32_t entry[2];  // (initial_loc, fde), both relative to .eh_frame_hdr
    std::memcpy(entry, reinterpret_cast<const void*>(m.eh.table + 8 * i), sizeof entry);
    const uint64_t fde = m.eh.hdr + static_cast<uint64_t>(static_cast<int64_t>(entry[1]));
    if (fde < m.eh.eh_frame || fde >= seg_end) continue;
    Reader r(fde, seg_end);
    uint64_t len = r.u32();
    bool wide = false;
    if (len == 0xffffffff) len = r.u64(), wide = true;
    const uint64_t body = r.pos();
    if (!r.ok() || len == 0 || len > seg_end - body) continue;
    const uint64_t end = body + len;
    Reader f(body, end);
    const uint64_t cie_field = f.pos();
    const uint64_t cie_delta = wide ? f.u64() : f.u32();
    if (cie_delta == 0 || cie_delta > cie_field) continue;  // a CIE, or garbage
    const uint64_t cie_at = cie_field - cie_delta;
    auto it = cies.find(cie_at);
    if (it == cies.end()) it = cies.emplace(cie_at, parse_cie(cie_at, seg_end)).first;
    const Cie& cie = it->second;
    if (!cie.ok) continue;  // libunwind cannot use it either: rows stay kNoCfi
    uint64_t pc_begin = 0, pc_range = 0;
    if (!f.encoded(cie.fde_enc, &pc_begin) || !f.encoded(cie.fde_enc & 0x0f, &pc_range)) continue;
    if (cie.augmented) f.seek(f.pos() + f.uleb());
    if (!f.ok() || pc_range == 0 || pc_begin < base || pc_begin - base > UINT32_MAX ||
        pc_range > UINT32_MAX - (pc_begin - base)) {
      continue;
    }
    FdeBuilder(cie, base, rows).run(f.pos(), end, pc_begin, pc_begin + pc_range, seg_end);
  }

  // FDEs come in .eh_frame_hdr order (by start address). One row per pc: where the gap
  // after one FDE meets the start of the next, the FDE wins; where FDEs overlap, the later
  // one wins, as in libunwind's search (last table entry with start <= pc).
  std::stable_sort(rows.begin(), rows.end(),
                   [](const CfiRow& a, const CfiRow& b) { return a.pc < b.pc; });
  std::vector<CfiRow> unique;
  unique.reserve(rows.size());
  for (const CfiRow& row : rows) {
    if (!unique.empty() && unique.back().pc == row.pc) {
      if (row.rule != CfiRule::kNoCfi || unique.back().rule == CfiRule::kNoCfi) {
        const uint8_t flags = unique.back().flags | row.flags;
        unique.back() = row;
        unique.back().flags = flags;
      }
      continue;
    }
    unique.push_back(row);
  }
  unique.shrink_to_fit();
  return std::make_shared<const CfiTable>(base, std::move(unique));
}

}  // namespace cprof::sampler
