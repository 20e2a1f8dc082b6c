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
  if (rows_.empty()) return;
  const size_t pages = (size_t{rows_.back().pc} >> kPageShift) + 2;
  page_.resize(pages);
  size_t i = 0;
  for (size_t p = 0; p < pages; ++p) {
    const uint64_t start = uint64_t{p} << kPageShift;
    while (i + 1 < rows_.size() && rows_[i + 1].pc <= start) ++i;
    page_[p] = static_cast<uint32_t>(i);
  }
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
