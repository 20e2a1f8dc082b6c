#pragma once
// CfiTable: one module's .eh_frame reduced to a sorted array of unwind rows, for the fast
// DWARF unwinder (cfi_unwinder.h, docs/unwinding.md "Fast DWARF unwinder").
//
// A row says, for every PC from its own `pc` up to the next row's, how to find the caller:
//   CFA = (rsp | rbp) + cfa_offset     (or the PLT rule below)
//   return address at CFA - 8
//   rbp (and rbx, r12..r15) saved at CFA + 8 * slot, or not saved (slot 0: unchanged)
// Anything else the CFI can say (a CFA expression, a register held in another register,
// a caller-saved register restored from memory, a signal frame, an unknown opcode) makes
// the row kComplex: the walker hands that frame and the rest of the stack to libunwind.
//
// Signal-safety contract:
//   - build_cfi_table() is NOT async-signal-safe (allocates). It runs when the ModuleTable
//     learns a module or decides the module needs it (ModuleTable::refresh,
//     build_wanted_tables; a normal context).
//   - Every const member of CfiTable is async-signal-safe, lock-free and re-entrant:
//     binary search over an immutable array, no allocation.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace cprof::sampler {

struct Module;

enum class CfiRule : uint8_t {
  kCfaRsp,     // CFA = rsp + cfa_offset
  kCfaRbp,     // CFA = rbp + cfa_offset
  kCfaPlt,     // lazy-binding .plt entry: CFA = rsp + 8 + ((pc & 15) >= cfa_offset ? 8 : 0)
  kOutermost,  // the return address is undefined (_start, clone): the stack ends here
  kComplex,    // CFI this table does not model: unwind this frame with libunwind
  kNoCfi,      // no FDE covers this PC (a gap between FDEs)
};

// 16 bytes. `pc` is relative to CfiTable::base() (the module's load bias).
struct CfiRow {
  static constexpr uint8_t kFdeBoundary = 1;  // first row of an FDE, or the gap after one

  uint32_t pc = 0;
  int32_t cfa_offset = 0;
  CfiRule rule = CfiRule::kNoCfi;
  uint8_t flags = 0;
  // Where a callee-saved register was saved, in 8-byte units from the CFA (always < 0);
  // 0 = not saved in this frame, so it keeps its value. Index: kSlotRbp ... kSlotR15.
  int8_t saved[6] = {};

  bool same_unwind(const CfiRow& o) const noexcept;
};
static_assert(sizeof(CfiRow) == 16);

// Indexes into CfiRow::saved.
enum CfiSlot : int { kSlotRbp = 0, kSlotRbx, kSlotR12, kSlotR13, kSlotR14, kSlotR15, kSlotCount };

class CfiTable {
 public:
  CfiTable(uint64_t base, std::vector<CfiRow> rows) noexcept;

  uint64_t base() const noexcept { return base_; }
  std::span<const CfiRow> rows() const noexcept { return rows_; }
  size_t fde_count() const noexcept { return fde_count_; }

  // The row in effect at `pc`, or nullptr if `pc` lies before the first row or at/after
  // the last one. Async-signal-safe.
  const CfiRow* find(uint64_t pc) const noexcept {
    const ptrdiff_t i = index(pc);
    return i < 0 ? nullptr : &rows_[static_cast<size_t>(i)];
  }
  // True if `a` <= `b` are covered by the same FDE (no FDE starts or ends in (a, b]).
  // Async-signal-safe.
  bool same_fde(uint64_t a, uint64_t b) const noexcept;

 private:
  // Index of the row in effect at `pc`, or -1. Inline: it is the walker's inner loop.
  ptrdiff_t index(uint64_t pc) const noexcept {
    if (pc < base_ || pc - base_ > UINT32_MAX || rows_.empty()) return -1;
    const auto rel = static_cast<uint32_t>(pc - base_);
    if (rel < rows_[0].pc) return -1;
    const size_t page = rel >> kPageShift;
    // Past the last page: the final gap row.
    if (page + 1 >= page_.size()) return static_cast<ptrdiff_t>(rows_.size() - 1);
    // Last row with row.pc <= rel among [page_[page], page_[page + 1]]; rows_[lo].pc <= rel
    // holds throughout. Branch-free halving (a cmov per step).
    size_t lo = page_[page];
    size_t n = size_t{page_[page + 1]} - lo + 1;
    while (n > 1) {
      const size_t half = n / 2;
      lo = rows_[lo + half].pc <= rel ? lo + half : lo;
      n -= half;
    }
    return static_cast<ptrdiff_t>(lo);
  }

  uint64_t base_;
  std::vector<CfiRow> rows_;  // sorted by pc, one row per pc
  size_t fde_count_ = 0;
  // page_[p]: index of the row in effect at offset p << kPageShift (the first row if none
  // is). 128-byte pages hold one to three rows; the index costs 1/32 of the code size.
  // The row for a pc in page p lies in [page_[p], page_[p + 1]], a few rows to search
  // instead of the whole table.
  static constexpr unsigned kPageShift = 7;
  std::vector<uint32_t> page_;
};

// Parses `m`'s .eh_frame (found through its .eh_frame_hdr table, as libunwind finds it)
// into a CfiTable. Returns nullptr if the module has no usable .eh_frame_hdr table; such
// a module is unwound by libunwind. Reads only the module's mapped segments. Not
// async-signal-safe.
std::shared_ptr<const CfiTable> build_cfi_table(const Module& m);

// The bytes of `m`'s .eh_frame that build_cfi_table() would read: from the section's start
// to the end of the last FDE its .eh_frame_hdr table lists (the section's size is not
// mapped anywhere; a scan of the table, ~1 ns per FDE). 0 if there is no usable table.
// The price in the on-demand policy (cfi_policy.h). Not async-signal-safe.
uint64_t eh_frame_size(const Module& m);

}  // namespace cprof::sampler
