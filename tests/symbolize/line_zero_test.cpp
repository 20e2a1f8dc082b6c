// attribute_enclosed_line_zero: line-0 rows inside one line's code take that line; others
// stay line 0.
#include <gtest/gtest.h>

#include <vector>

#include "symbolize/dwarf/line_table.h"

namespace {

using cprof::symbolize::attribute_enclosed_line_zero;
using cprof::symbolize::LineRow;

LineRow row(uint64_t addr, uint32_t line, uint32_t file = 1, bool end = false) {
  LineRow r;
  r.addr = addr;
  r.line = line;
  r.file = file;
  r.column = line == 0 ? 0 : 9;
  r.end_sequence = end;
  return r;
}

std::vector<uint32_t> lines(const std::vector<LineRow>& rows) {
  std::vector<uint32_t> out;
  for (const auto& r : rows) out.push_back(r.line);
  return out;
}

// The rows clang -O2 gave a two-branch loop (experiments/causal/openmp.cpp): each loop's
// register copy is line 0 between two rows of the loop's line.
TEST(LineZero, InsideOneLinesCodeTakesThatLine) {
  std::vector<LineRow> rows{row(0x16c0, 20), row(0x16c9, 0), row(0x16d0, 20), row(0x16da, 20),
                            row(0x16de, 0), row(0x16e1, 20), row(0x16e8, 16)};
  attribute_enclosed_line_zero(rows);
  EXPECT_EQ(lines(rows), (std::vector<uint32_t>{20, 20, 20, 20, 20, 20, 16}));
  EXPECT_EQ(rows[4].column, 9u);
  EXPECT_EQ(rows[4].file, 1u);
}

TEST(LineZero, BetweenTwoLinesOrFilesStaysZero) {
  std::vector<LineRow> rows{row(0x10, 17), row(0x18, 0), row(0x20, 24), row(0x28, 0, 1),
                            row(0x30, 24, 2)};
  attribute_enclosed_line_zero(rows);
  EXPECT_EQ(lines(rows), (std::vector<uint32_t>{17, 0, 24, 0, 24}));
}

TEST(LineZero, AtTheEdgesOfASequenceStaysZero) {
  // First row, a row after an end of sequence, a row before one, and the last row.
  std::vector<LineRow> rows{row(0x10, 0),  row(0x18, 5), row(0x20, 0), row(0x28, 5, 1, true),
                            row(0x30, 0), row(0x38, 5), row(0x40, 0)};
  attribute_enclosed_line_zero(rows);
  EXPECT_EQ(lines(rows), (std::vector<uint32_t>{0, 5, 0, 5, 0, 5, 0}));
}

TEST(LineZero, RunsOfLineZeroAreLeftAlone) {
  // Two line-0 rows in a row: neither has the same line on both sides.
  std::vector<LineRow> rows{row(0x10, 8), row(0x18, 0), row(0x20, 0), row(0x28, 8)};
  attribute_enclosed_line_zero(rows);
  EXPECT_EQ(lines(rows), (std::vector<uint32_t>{8, 0, 0, 8}));
}

}  // namespace
