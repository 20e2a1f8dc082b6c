#include "sampler/runtime/moved_code.h"

#include <algorithm>
#include <array>
#include <atomic>

namespace cprof::sampler {
namespace {

struct MovedCode {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t original = 0;
  size_t row_count = 0;
  std::array<MovedCodeRow, kMovedCodeRowsMax> rows{};
};

// Entries below `published` are complete and never written again; registration is
// serialized by its callers' contract (start-up, one thread), the release store makes
// each entry whole before a handler can read it.
std::array<MovedCode, kMovedCodeMax> g_moved;
std::atomic<size_t> g_published{0};

}  // namespace

bool register_moved_code(uint64_t start, uint64_t end, uint64_t original,
                         std::span<const MovedCodeRow> rows) {
  const size_t n = g_published.load(std::memory_order_relaxed);
  if (n == kMovedCodeMax || rows.empty() || rows.size() > kMovedCodeRowsMax ||
      rows.front().offset != 0 || end <= start) {
    return false;
  }
  MovedCode& m = g_moved[n];
  m.start = start;
  m.end = end;
  m.original = original;
  m.row_count = rows.size();
  std::copy(rows.begin(), rows.end(), m.rows.begin());
  g_published.store(n + 1, std::memory_order_release);
  return true;
}

std::optional<OriginalPlace> moved_code_origin(uint64_t pc, uint64_t sp) {
  const size_t n = g_published.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    const MovedCode& m = g_moved[i];
    if (pc < m.start || pc >= m.end) continue;
    const uint64_t offset = pc - m.start;
    const MovedCodeRow* row = &m.rows[0];
    for (size_t r = 1; r < m.row_count && m.rows[r].offset <= offset; ++r) row = &m.rows[r];
    return OriginalPlace{m.original + row->original_offset,
                         sp - static_cast<uint64_t>(static_cast<int64_t>(row->stack_shift))};
  }
  return std::nullopt;
}

}  // namespace cprof::sampler
