// Region spans (region_spans records) in the chrome trace: one "X" slice per call, named
// by its point, on a track of its thread's, with the summary instant kept; and the event
// budget that cuts them.
#include <gtest/gtest.h>

#include <fstream>

#include "report/render/chrome_causal.h"
#include "report/render/render.h"
#include "tests/report/causal_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

using testing::TempDir;

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Thread 1 "main" ran one call of "req", thread 2 "worker" three (two in one batch, one
// in a later batch, as two drains write them), one "inner" call nested in a "req" call.
Report spans_report(const std::filesystem::path& dir) {
  testing::ProcessWriter w(dir / "app.host.300.cprof", 300);
  w.thread(1, "main");
  w.thread(2, "worker");
  w.add(format::ProgressPointRecord{.id = 0, .name = "req", .kind = format::ProgressPointKind::latency});
  w.add(format::ProgressPointRecord{.id = 1, .name = "inner", .kind = format::ProgressPointKind::latency});
  w.add(format::RegionSpansRecord{.point_id = 0, .name = "req",
                                  .spans = {{.tid = 2, .begin_ns = 1'100'000'000, .end_ns = 1'102'000'000},
                                            {.tid = 1, .begin_ns = 1'100'500'000, .end_ns = 1'101'000'000}}});
  w.add(format::RegionSpansRecord{.point_id = 1, .name = "inner",
                                  .spans = {{.tid = 2, .begin_ns = 1'100'200'000, .end_ns = 1'100'300'000}}});
  w.add(format::RegionSpansRecord{.point_id = 0, .name = "req",
                                  .spans = {{.tid = 2, .begin_ns = 1'200'000'000, .end_ns = 1'203'000'000},
                                            {.tid = 2, .begin_ns = 1'300'000'000, .end_ns = 1'300'000'500}}});
  w.add(format::RegionRecord{.name = "req", .time_ns = 2'000'000'000, .count = 4, .mean_ns = 1'375'125,
                             .min_ns = 500, .max_ns = 3'000'000});
  w.close();
  testing::FakeSymbols symbols;
  return build_report(load_results(find_results_files(dir), {.keep_timeline = true}), symbols, {});
}

TEST(ChromeRegionSpans, EveryCallIsASliceOnItsThreadsTrack) {
  TempDir dir;
  const Report r = spans_report(dir.path());
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(region_span_count(r.processes[0]), 5u);
  const std::string trace = render_chrome(r);
  EXPECT_EQ(count(trace, "\"cat\": \"region\"}"), 0u);  // every slice has args
  EXPECT_EQ(count(trace, "\"name\": \"req\", \"cat\": \"region\""), 4u) << trace;
  EXPECT_EQ(count(trace, "\"name\": \"inner\", \"cat\": \"region\""), 1u) << trace;
  // Tracks in tid order, named after their threads; the summary instant stays.
  EXPECT_NE(trace.find("\"tid\": 1000100000, \"name\": \"thread_name\", \"args\": {\"name\": \"main (1) regions\"}"),
            std::string::npos) << trace;
  EXPECT_NE(trace.find("\"tid\": 1000100001, \"name\": \"thread_name\", \"args\": {\"name\": \"worker (2) regions\"}"),
            std::string::npos) << trace;
  EXPECT_EQ(count(trace, "\"name\": \"region req\""), 1u);
  // The worker's first call: 0.1 s after the process start (1.0 s monotonic), 2 ms long.
  EXPECT_NE(trace.find("\"ph\": \"X\", \"pid\": 1, \"tid\": 1000100001, \"ts\": 100000, \"dur\": 2000, "
                       "\"name\": \"req\", \"cat\": \"region\", \"args\": {\"tid\": 2}"),
            std::string::npos) << trace;
  EXPECT_EQ(trace.find("region spans cut"), std::string::npos);

  const auto file = dir.path() / "trace.json";
  std::ofstream(file) << trace;
  if (!testing::have_tool("python3")) GTEST_SKIP() << "python3 not installed: JSON not parsed";
  const auto parsed = testing::run_shell(
      "python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))[\"traceEvents\"]; "
      "x=[e for e in t if e.get(\"cat\")==\"region\" and e[\"ph\"]==\"X\"]; "
      "print(len(x), sorted(e[\"args\"][\"tid\"] for e in x), all(e[\"dur\"]>0 for e in x))' " +
      file.string() + " 2>&1");
  EXPECT_EQ(parsed.out, "5 [1, 2, 2, 2, 2] True\n");
}

// An eighth of the budget goes to region calls: 16 events, 2 calls (the earliest), and a
// note on the summary track says how many were left out.
TEST(ChromeRegionSpans, BudgetKeepsTheEarliestCalls) {
  TempDir dir;
  const std::string trace = render_chrome(spans_report(dir.path()), 16);
  EXPECT_EQ(count(trace, "\"cat\": \"region\", \"args\": {\"tid\""), 2u) << trace;
  EXPECT_NE(trace.find("\"ts\": 100000, \"dur\": 2000, \"name\": \"req\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"ts\": 100200, \"dur\": 100, \"name\": \"inner\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("region spans cut: the first 2 of 5 calls drawn"), std::string::npos) << trace;
}

}  // namespace
}  // namespace cprof::report
