// CfiTable lookups: binary search over the immutable row array (async-signal-safe).
#include "sampler/unwind/cfi_table.h"

#include <cstring>

namespace cprof::sampler {

bool CfiRow::same_unwind(const CfiRow& o) const noexcept {
  return cfa_offset == o.cfa_offset && rule == o.rule &&
         std::memcmp(saved, o.saved, sizeof saved) == 0;
}

CfiTable::CfiTable(uint64_t base, std::vector<CfiRow> rows) noexcept
    : base_(base), rows_(std::move(rows)) {
  for (const CfiRow& r : rows_) {
    if ((r.flags & CfiRow::kFdeBoundary) != 0 && r.rule != CfiRule::kNoCfi) ++fde_count_;
  }
}

ptrdiff_t CfiTable::index(uint64_t pc) const noexcept {
  if (pc < base_ || pc - base_ > UINT32_MAX || rows_.empty()) return -1;
  const auto rel = static_cast<uint32_t>(pc - base_);
  // Last row with row.pc <= rel (hand-written: std::upper_bound is fine too, but this keeps
  // the handler path free of anything that might not inline).
  size_t lo = 0, hi = rows_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (rows_[mid].pc <= rel) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return -1;
  // The last row is always the kNoCfi gap after the last FDE, so rel past the end finds it.
  return static_cast<ptrdiff_t>(lo - 1);
}

const CfiRow* CfiTable::find(uint64_t pc) const noexcept {
  const ptrdiff_t i = index(pc);
  return i < 0 ? nullptr : &rows_[static_cast<size_t>(i)];
}

bool CfiTable::same_fde(uint64_t a, uint64_t b) const noexcept {
  const ptrdiff_t ia = index(a);
  const ptrdiff_t ib = index(b);
  if (ia < 0 || ib < ia) return false;
  for (ptrdiff_t i = ia + 1; i <= ib; ++i) {
    if ((rows_[static_cast<size_t>(i)].flags & CfiRow::kFdeBoundary) != 0) return false;
  }
  return rows_[static_cast<size_t>(ia)].rule != CfiRule::kNoCfi;
}

}  // namespace cprof::sampler
