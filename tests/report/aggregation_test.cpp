// The flat profile: self is the innermost frame (inlined callee included), total counts a
// function once per sample however often recursion repeats it, and every row carries
// its spread across threads.
#include <gtest/gtest.h>

#include <cmath>

#include "report/report.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"

namespace cprof::report {
namespace {

using testing::FakeSymbols;
using testing::ProcessWriter;
using testing::TempDir;

constexpr uint64_t kMs = 1'000'000;

// recurse [0x1000,0x1100) r.cpp, compute [0x2000,0x2080) c.cpp with helper inlined at
// [0x2080,0x2100) from h.h, main [0x3000,0x3100) m.cpp.
void name_functions(FakeSymbols& s) {
  s.add(0x1000, 0x1100, {{.function = "recurse", .file = "r.cpp", .line = 10}});
  s.add(0x2000, 0x2080, {{.function = "compute", .file = "c.cpp", .line = 20}});
  s.add(0x2080, 0x2100, {{.function = "helper", .file = "h.h", .line = 5},
                         {.function = "compute", .file = "c.cpp", .line = 22}});
  s.add(0x3000, 0x3100, {{.function = "main", .file = "m.cpp", .line = 30}});
}

// Thread 1: 3 samples deep in recursion. Thread 2: 2 in the inlined helper, 1 in compute.
void write_profile(const std::filesystem::path& dir) {
  ProcessWriter w(dir / "app.host.100.cprof", 100);
  ASSERT_EQ(w.error(), "");
  for (int i = 0; i < 3; ++i) w.sample(1, {0x1010, 0x1051, 0x1051, 0x3011}, kMs);
  for (int i = 0; i < 2; ++i) w.sample(2, {0x2090, 0x3021}, kMs);
  w.sample(2, {0x2010, 0x3021}, 2 * kMs);
}

const FlatRow& row_named(const Report& r, const std::string& name) {
  const auto& t = r.symbols.table;
  for (const auto& row : r.flat.functions) {
    if (t.functions[row.id].name == name) return row;
  }
  throw std::runtime_error("no row " + name);
}

const FlatRow& line_row(const Report& r, const std::string& label) {
  for (const auto& row : r.flat.lines) {
    if (r.symbols.table.line_label(row.id) == label) return row;
  }
  throw std::runtime_error("no line " + label);
}

Report build(const std::filesystem::path& dir, FakeSymbols& symbols) {
  auto loaded = load_results(find_results_files(dir));
  EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
  return build_report(std::move(loaded), symbols);
}

TEST(FlatProfile, SelfIsInnermostAndTotalCountsRecursionOnce) {
  TempDir dir;
  write_profile(dir.path());
  FakeSymbols symbols;
  name_functions(symbols);
  const auto r = build(dir.path(), symbols);

  EXPECT_EQ(r.flat.all.samples, 6u);
  EXPECT_EQ(r.flat.all.time_ns, 7 * kMs);
  const auto& recurse = row_named(r, "recurse");
  EXPECT_EQ(recurse.self.samples, 3u);
  EXPECT_EQ(recurse.total.samples, 3u);  // not 9: three frames, one sample each
  EXPECT_EQ(recurse.total.time_ns, 3 * kMs);
  const auto& main_row = row_named(r, "main");
  EXPECT_EQ(main_row.self.samples, 0u);
  EXPECT_EQ(main_row.total.samples, 6u);
  EXPECT_DOUBLE_EQ(r.flat.fraction(main_row.total), 1.0);
  // The inlined callee is the innermost frame: it takes self; its host takes total.
  const auto& helper = row_named(r, "helper");
  EXPECT_EQ(helper.self.samples, 2u);
  const auto& compute = row_named(r, "compute");
  EXPECT_EQ(compute.self.samples, 1u);
  EXPECT_EQ(compute.self.time_ns, 2 * kMs);
  EXPECT_EQ(compute.total.samples, 3u);
  EXPECT_EQ(compute.total.time_ns, 4 * kMs);
}

// Line 0 is DWARF's "no source line"; its file is only the unit's (rustc's rows for a crate
// built without -g name a codegen unit). Such code is placed by its function alone: one
// line row per function, not one "FILE:0" row for every function of the unit.
TEST(FlatProfile, CodeAtLineZeroIsPlacedByItsFunctionAlone) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.100.cprof", 100);
    ASSERT_EQ(w.error(), "");
    for (int i = 0; i < 3; ++i) w.sample(1, {0x1010, 0x3011}, kMs);
    for (int i = 0; i < 2; ++i) w.sample(1, {0x2010, 0x3011}, kMs);
  }
  FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "so::alpha", .file = "so.49f5-cgu.0", .line = 0}});
  symbols.add(0x2000, 0x2100, {{.function = "so::beta", .file = "so.49f5-cgu.0", .line = 0}});
  symbols.add(0x3000, 0x3100, {{.function = "so::main", .file = "main.rs", .line = 7}});
  const auto r = build(dir.path(), symbols);
  EXPECT_EQ(line_row(r, "so::alpha").self.samples, 3u);
  EXPECT_EQ(line_row(r, "so::beta").self.samples, 2u);
  EXPECT_EQ(line_row(r, "main.rs:7").total.samples, 5u);
  EXPECT_THROW(line_row(r, "so.49f5-cgu.0:0"), std::runtime_error);
  EXPECT_EQ(r.symbols.table.functions[row_named(r, "so::alpha").id].file, "");
}

TEST(FlatProfile, RowsSortBySelfTime) {
  TempDir dir;
  write_profile(dir.path());
  FakeSymbols symbols;
  name_functions(symbols);
  const auto r = build(dir.path(), symbols);
  std::vector<std::string> order;
  for (const auto& row : r.flat.functions) order.push_back(r.symbols.table.functions[row.id].name);
  // recurse 3 ms, helper 2 ms (2 samples), compute 2 ms (1 sample), main 0.
  EXPECT_EQ(order, (std::vector<std::string>{"recurse", "helper", "compute", "main"}));
}

TEST(FlatProfile, LinesComeFromTheInnermostInlineFrame) {
  TempDir dir;
  write_profile(dir.path());
  FakeSymbols symbols;
  name_functions(symbols);
  const auto r = build(dir.path(), symbols);
  EXPECT_EQ(line_row(r, "h.h:5").self.samples, 2u);
  EXPECT_EQ(line_row(r, "c.cpp:22").self.samples, 0u);  // the call site of the inline
  EXPECT_EQ(line_row(r, "c.cpp:22").total.samples, 2u);
  EXPECT_EQ(line_row(r, "c.cpp:20").self.samples, 1u);
  EXPECT_EQ(line_row(r, "m.cpp:30").total.samples, 6u);
  // A function's location is the lowest line seen for it in its file.
  const auto& compute = r.symbols.table.functions[row_named(r, "compute").id];
  EXPECT_EQ(compute.file, "c.cpp");
  EXPECT_EQ(compute.line, 20u);
}

// Where the debug information says where a function is defined, that is its place: GCC's
// imprecise inline ranges put a callee's line (before the function, in SQLite's
// amalgamation) in the function's own frame, and "the lowest line seen" named it
// (sqlite3BtreeIndexMoveto at sqlite3.c:34808).
TEST(FlatProfile, AFunctionIsPlacedWhereItIsDefined) {
  TempDir dir;
  write_profile(dir.path());
  FakeSymbols symbols;
  name_functions(symbols);
  symbols.add(
      0x2000, 0x2080,
      {{.function = "compute", .file = "c.cpp", .line = 3, .decl_file = "c.cpp", .decl_line = 18}});
  const auto r = build(dir.path(), symbols);
  const auto& compute = r.symbols.table.functions[row_named(r, "compute").id];
  EXPECT_EQ(compute.file, "c.cpp");
  EXPECT_EQ(compute.line, 18u);
  EXPECT_EQ(line_row(r, "c.cpp:3").self.samples, 1u);  // the address's line is kept
}

TEST(FlatProfile, PerThreadSpreadCountsThreadsWithoutTheRowAsZero) {
  TempDir dir;
  write_profile(dir.path());
  FakeSymbols symbols;
  name_functions(symbols);
  const auto r = build(dir.path(), symbols);
  ASSERT_EQ(r.flat.threads, 2u);
  const auto& recurse = row_named(r, "recurse").self_per_thread;  // {3 ms, 0}
  EXPECT_EQ(recurse.count(), 2u);
  EXPECT_DOUBLE_EQ(recurse.mean(), 1.5 * kMs);
  EXPECT_DOUBLE_EQ(recurse.min(), 0.0);
  EXPECT_DOUBLE_EQ(recurse.max(), 3.0 * kMs);
  EXPECT_NEAR(recurse.stddev(), std::sqrt(2 * 1.5 * 1.5) * kMs, 1.0);
  const auto& main_total = row_named(r, "main").total_per_thread;  // {3 ms, 4 ms}
  EXPECT_DOUBLE_EQ(main_total.mean(), 3.5 * kMs);
  EXPECT_DOUBLE_EQ(main_total.min(), 3.0 * kMs);
}

TEST(FlatProfile, ProcessesMergeByNameAndEachAddressIsResolvedOnce) {
  TempDir dir;
  write_profile(dir.path());
  {
    ProcessWriter w(dir.path() / "app.host.101.cprof", 101);
    for (int i = 0; i < 4; ++i) w.sample(7, {0x1010, 0x3011}, kMs);
  }
  FakeSymbols symbols;
  name_functions(symbols);
  const auto r = build(dir.path(), symbols);
  EXPECT_EQ(r.processes.size(), 2u);
  EXPECT_EQ(r.flat.threads, 3u);
  EXPECT_EQ(row_named(r, "recurse").self.samples, 7u);
  EXPECT_EQ(row_named(r, "main").total.samples, 10u);
  // Same module in both processes: one call, with the distinct lookup addresses only
  // (0x1010, 0x1050, 0x3010, 0x2090, 0x3020, 0x2010; return addresses minus one).
  EXPECT_EQ(symbols.calls(), 1u);
  EXPECT_EQ(symbols.addresses_asked(), 6u);
}

TEST(FlatProfile, UnnamedAddressesShowModuleAndOffset) {
  TempDir dir;
  write_profile(dir.path());
  auto none = make_address_only_source();
  auto loaded = load_results(find_results_files(dir.path()));
  const auto r = build_report(std::move(loaded), *none);
  EXPECT_EQ(r.symbols.table.functions[r.flat.functions.front().id].name, "app+0x1010");
  bool found_return = false;
  for (const auto& f : r.symbols.table.functions) found_return |= f.name == "app+0x1050";
  EXPECT_TRUE(found_return) << "return addresses are looked up at address - 1";
}

TEST(FlatProfile, AddressOutsideEveryModuleIsUnknown) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.1.cprof", 1);
    w.add(format::SampleRecord{.tid = 1, .weight_ns = kMs, .frames = {0x10, 0x20}});
  }
  FakeSymbols symbols;
  const auto r = build(dir.path(), symbols);
  ASSERT_EQ(r.flat.functions.size(), 1u);
  EXPECT_EQ(r.symbols.table.functions[r.flat.functions[0].id].name, "[unknown]");
  EXPECT_EQ(r.flat.functions[0].total.samples, 1u);
}

}  // namespace
}  // namespace cprof::report
