// The profile views beside the flat table: the call tree, the per thread / process / rank
// breakdown, counters per function with IPC, process metrics -- as built, as text (every
// line within 100 columns) and as JSON.
#include <gtest/gtest.h>

#include <sstream>

#include "report/render/render.h"
#include "tests/report/views_fixture.h"

namespace cprof::report {
namespace {

using testing::kViewsMs;
using testing::TempDir;
using testing::views_report;

std::string name_of(const Report& r, FunctionId f) { return r.symbols.table.functions[f].name; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void expect_fits(const std::string& text) {
  for (const auto& l : lines_of(text)) EXPECT_LE(l.size(), 100u) << l;
}

TEST(CallTree, TopDownWithInlineFramesSelfAndTotal) {
  TempDir dir;
  const auto r = views_report(dir.path());
  ASSERT_TRUE(r.tree);
  const auto& nodes = r.tree->nodes;
  ASSERT_EQ(nodes.size(), 5u);  // root, main, compute, helper<int>, work
  EXPECT_EQ(nodes[0].total.samples, 7u);
  ASSERT_EQ(nodes[0].children.size(), 1u);
  const auto& main = nodes[nodes[0].children[0]];
  EXPECT_EQ(name_of(r, main.function), "main");
  EXPECT_EQ(main.total.time_ns, 7 * kViewsMs);
  EXPECT_EQ(main.self.samples, 0u);
  ASSERT_EQ(main.children.size(), 2u);
  const auto& compute = nodes[main.children[0]];  // hottest first
  EXPECT_EQ(name_of(r, compute.function), "compute");
  EXPECT_EQ(compute.total.samples, 4u);
  ASSERT_EQ(compute.children.size(), 1u);
  const auto& helper = nodes[compute.children[0]];
  EXPECT_EQ(name_of(r, helper.function), "helper<int>");
  EXPECT_EQ(helper.self.samples, 4u);
  EXPECT_EQ(helper.depth, 3u);
  const auto& work = nodes[main.children[1]];
  EXPECT_EQ(name_of(r, work.function), "work");
  EXPECT_EQ(work.self.samples, 3u);
}

TEST(CallTree, OnlyBuiltWhenAsked) {
  TempDir dir;
  EXPECT_FALSE(views_report(dir.path(), /*tree=*/false).tree);
}

TEST(Breakdown, ThreadsProcessesRanks) {
  TempDir dir;
  const auto r = views_report(dir.path());
  const auto& b = r.breakdown;
  ASSERT_EQ(b.threads.size(), 3u);
  // Two threads of 3 samples, one of 1; ties keep process order.
  EXPECT_EQ(b.threads[0].time.samples, 3u);
  EXPECT_EQ(name_of(r, b.threads[0].top_function), "work");
  EXPECT_EQ(b.threads[1].time.samples, 3u);
  EXPECT_EQ(name_of(r, b.threads[1].top_function), "helper<int>");
  EXPECT_EQ(b.threads[2].time.samples, 1u);
  ASSERT_EQ(b.processes.size(), 2u);
  EXPECT_EQ(b.processes[0].time.samples, 4u);
  EXPECT_EQ(b.processes[0].threads, 2u);
  EXPECT_EQ(name_of(r, b.processes[0].top_function), "work");
  ASSERT_EQ(b.ranks.size(), 2u);
  EXPECT_EQ(b.ranks[0].rank, 0);
  EXPECT_EQ(b.ranks[1].rank, 1);
  EXPECT_DOUBLE_EQ(b.ranks[0].time_per_thread.mean(), 2.0 * kViewsMs);
  EXPECT_DOUBLE_EQ(b.ranks[0].time_per_thread.max(), 3.0 * kViewsMs);
  EXPECT_DOUBLE_EQ(b.ranks[0].time_per_thread.min(), 1.0 * kViewsMs);
}

TEST(Breakdown, ProcessMetricsSummarized) {
  TempDir dir;
  const auto r = views_report(dir.path());
  const auto& m = r.breakdown.metrics[0];
  EXPECT_EQ(m.records, 2u);
  EXPECT_EQ(m.peak_rss_bytes, 20'000'000u);
  EXPECT_DOUBLE_EQ(m.cpu_utilization, 1.0);  // 500 ms of CPU in 500 ms
  EXPECT_EQ(m.minor_faults, 100u);
  EXPECT_EQ(m.major_faults, 2u);
  EXPECT_EQ(m.voluntary_switches, 5u);
  EXPECT_EQ(m.involuntary_switches, 7u);
  EXPECT_EQ(r.breakdown.metrics[1].records, 0u);
  EXPECT_LT(r.breakdown.metrics[1].cpu_utilization, 0);
}

TEST(Counters, PerFunctionByEventNameWithIpcAndUnavailable) {
  TempDir dir;
  const auto r = views_report(dir.path());
  const auto& c = r.counters;
  ASSERT_EQ(c.events.size(), 3u);
  EXPECT_EQ(c.events[0].name, "cycles");
  EXPECT_EQ(c.events[0].total, 4000u);
  EXPECT_EQ(c.events[1].total, 6500u);
  EXPECT_EQ(c.events[2].processes_unavailable, 1u);
  EXPECT_EQ(c.events[2].detail, "perf_event_open: No such file or directory");
  ASSERT_EQ(c.ratios.size(), 1u);
  EXPECT_EQ(c.ratios[0].name, "IPC");
  // work: 3 samples x (1000 cycles, 2000 instructions); helper<int>: 1 x (1000, 500).
  ASSERT_GE(c.functions.size(), 2u);
  EXPECT_EQ(name_of(r, c.functions[0].function), "work");
  EXPECT_DOUBLE_EQ(ratio_value(c.ratios[0], c.functions[0].self), 2.0);
  EXPECT_EQ(name_of(r, c.functions[1].function), "helper<int>");
  EXPECT_DOUBLE_EQ(ratio_value(c.ratios[0], c.functions[1].self), 0.5);
  // main has no self counts, and all of them in total.
  const auto main =
      std::find_if(c.functions.begin(), c.functions.end(),
                   [&](const CounterRow& row) { return name_of(r, row.function) == "main"; });
  ASSERT_NE(main, c.functions.end());
  EXPECT_EQ(main->self[0], 0u);
  EXPECT_EQ(main->total[0], 4000u);
  EXPECT_EQ(main->total[1], 6500u);
}

TEST(Counters, ACorrectedEventRecordReplacesTheFirst) {
  TempDir dir;
  {
    testing::ProcessWriter w(dir.path() / "a.cprof", 1);
    w.add(format::EventRecord{.index = 0, .name = "context-switches"});
    w.add(format::EventRecord{.index = 1, .name = "page-faults"});
    w.sample(1, {0x1010});
    w.add(format::EventRecord{.index = 0,
                              .name = "context-switches",
                              .status = format::EventStatus::counted_zero,
                              .detail = "opened but counted nothing"});
  }
  testing::FakeSymbols symbols;
  const auto r = build_report(load_results(find_results_files(dir.path())), symbols);
  ASSERT_EQ(r.processes[0].events.size(), 2u);
  EXPECT_EQ(r.processes[0].events[0].status, format::EventStatus::counted_zero);
  ASSERT_EQ(r.counters.events.size(), 2u);
  EXPECT_EQ(r.counters.events[0].processes_ok, 0u);
  EXPECT_EQ(r.counters.events[0].processes_zero, 1u);
  EXPECT_EQ(r.counters.events[1].processes_ok, 1u);
}

TEST(TextViews, TreeThreadsProcessesRanksCounters) {
  TempDir dir;
  const auto r = views_report(dir.path());
  const auto tree = render_text(r, {.top = 0, .view = View::tree});
  expect_fits(tree);
  EXPECT_NE(tree.find("100.00%   0.00%      7 ms  main\n"), std::string::npos) << tree;
  EXPECT_NE(tree.find(" 57.14%   0.00%      4 ms    compute\n"), std::string::npos) << tree;
  EXPECT_NE(tree.find(" 57.14%  57.14%      4 ms      helper<int>\n"), std::string::npos) << tree;
  EXPECT_NE(tree.find(" 42.86%  42.86%      3 ms    work\n"), std::string::npos) << tree;

  const auto threads = render_text(r, {.by = RowKind::thread});
  expect_fits(threads);
  EXPECT_NE(threads.find("Threads by time (top 3 of 3)"), std::string::npos) << threads;
  EXPECT_NE(threads.find("1 main in app[100] rank 0"), std::string::npos) << threads;
  EXPECT_NE(threads.find("work 100%"), std::string::npos) << threads;

  const auto processes = render_text(r, {.by = RowKind::process});
  expect_fits(processes);
  EXPECT_NE(processes.find("20.0 MB  1.00       100/2         5/7  app[100] rank 0"),
            std::string::npos)
      << processes;

  const auto ranks = render_text(r, {.by = RowKind::rank});
  expect_fits(ranks);
  EXPECT_NE(
      // Of all time accounted: app[100] recorded 500 ms of CPU time, 496 ms of it unsampled.
      ranks.find("    0     1       2   0.80%      4 ms      2 ms      1 ms      3 ms  work 75%"),
      std::string::npos)
      << ranks;

  const auto flat = render_text(r, {});
  expect_fits(flat);
  EXPECT_NE(flat.find("Counters by function (self; top 2 of 2); IPC = instructions / cycles"),
            std::string::npos)
      << flat;
  EXPECT_NE(flat.find("         3000          6000    2.000  work"), std::string::npos) << flat;
  EXPECT_NE(flat.find("         4000          6500    1.625  (total, all functions)\n"),
            std::string::npos)
      << flat;
  EXPECT_NE(
      flat.find("unavailable event: cache-misses (perf_event_open: No such file or directory)"),
      std::string::npos)
      << flat;
}

TEST(TextViews, DeepTreeAndLongNamesFit100Columns) {
  TempDir dir;
  {
    testing::ProcessWriter w(dir.path() / "deep.cprof", 5);
    std::vector<uint64_t> frames;
    for (uint64_t i = 0; i < 60; ++i) frames.push_back(0x1010 + i);
    w.sample(1, frames);
  }
  testing::FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = std::string(150, 'f'), .file = "/x.cpp", .line = 1}});
  const auto r =
      build_report(load_results(find_results_files(dir.path())), symbols, {.call_tree = true});
  const auto text = render_text(r, {.top = 0, .view = View::tree});
  expect_fits(text);
  EXPECT_NE(text.find("[59] "), std::string::npos) << text;
}

TEST(JsonViews, BreakdownCountersMetricsTree) {
  TempDir dir;
  const auto json = render_json(views_report(dir.path()), {.top = 0});
  // Long needles, each one string split over two lines.
  const char* const tree_root =
      "{\"id\": 1, \"parent\": 0, \"function\": \"main\", \"self_samples\": 0, \"self_ns\": 0, "
      "\"total_samples\": 7, \"total_ns\": 7000000}";
  const char* const per_thread =
      "\"per_thread_ns\": {\"mean\": 2000000, \"min\": 1000000, \"max\": 3000000, \"stddev\": "
      "1414213.562373095}";
  for (const char* needle :
       {"\"by_thread\": [", "\"by_process\": [", "\"by_rank\": [", "\"counters\": {",
        "\"ratios\": [", "\"tree\": [",
        "\"metrics\": {\"records\": 2, \"peak_rss_bytes\": 20000000, \"cpu_utilization\": 1,",
        "\"minor_faults\": 100", "\"involuntary_switches\": 7",
        "{\"name\": \"IPC\", \"numerator\": \"instructions\", \"denominator\": \"cycles\"}",
        "\"self\": {\"cycles\": 3000, \"instructions\": 6000, \"cache-misses\": 0, \"IPC\": 2}",
        "\"processes_unavailable\": 1", "\"tid\": 7, \"name\": \"main\"",
        "\"top_function\": \"work\"", tree_root, per_thread}) {
    EXPECT_NE(json.find(needle), std::string::npos) << needle << "\n" << json;
  }
  EXPECT_EQ(std::count(json.begin(), json.end(), '{'), std::count(json.begin(), json.end(), '}'));
  EXPECT_EQ(std::count(json.begin(), json.end(), '['), std::count(json.begin(), json.end(), ']'));
}

}  // namespace
}  // namespace cprof::report

namespace cprof::report {
namespace {

TEST(GroupSpread, RowsSpreadOverProcessesAndRuns) {
  testing::TempDir dir;
  // run1: one process, 4 ms of work; run2: two processes, 1 ms and 3 ms of work, and one
  // with 2 ms of main only.
  const auto write = [&](const std::string& run, int64_t pid, int work_ms, int main_ms) {
    std::filesystem::create_directories(dir.path() / run);
    testing::ProcessWriter w(dir.path() / run / ("app." + std::to_string(pid) + ".cprof"), pid);
    for (int i = 0; i < work_ms; ++i) w.sample(1, {0x1010, 0x3011});
    for (int i = 0; i < main_ms; ++i) w.sample(1, {0x3010});
  };
  write("run1", 1, 4, 0);
  write("run2", 2, 1, 0);
  write("run2", 3, 3, 0);
  write("run2", 4, 0, 2);
  testing::FakeSymbols symbols;
  testing::add_views_symbols(symbols);
  const auto r = build_report(load_results(find_results_files(dir.path())), symbols);
  const auto& flat = r.flat;
  EXPECT_EQ(flat.processes, 4u);
  EXPECT_EQ(flat.runs, 2u);
  ASSERT_EQ(flat.function_spread.size(), flat.functions.size());
  ASSERT_EQ(r.symbols.table.functions[flat.functions[0].id].name, "work");
  const auto& work = flat.function_spread[0];
  // Per process: 4, 1, 3, 0 ms. Per run: 4 and 4 ms.
  EXPECT_DOUBLE_EQ(work.self_per_process.mean(), 2.0 * kViewsMs);
  EXPECT_DOUBLE_EQ(work.self_per_process.min(), 0.0);
  EXPECT_DOUBLE_EQ(work.self_per_process.max(), 4.0 * kViewsMs);
  EXPECT_NEAR(work.self_per_process.stddev(), 1.8257418583505538 * kViewsMs, 1e-3);
  EXPECT_DOUBLE_EQ(work.self_per_run.mean(), 4.0 * kViewsMs);
  EXPECT_DOUBLE_EQ(work.self_per_run.stddev(), 0.0);
  // main: total 4, 1, 3, 2 ms per process; 4 and 6 per run.
  const auto main = std::find_if(
      flat.functions.begin(), flat.functions.end(),
      [&](const FlatRow& row) { return r.symbols.table.functions[row.id].name == "main"; });
  const auto& m = flat.function_spread[static_cast<size_t>(main - flat.functions.begin())];
  EXPECT_DOUBLE_EQ(m.total_per_process.mean(), 2.5 * kViewsMs);
  EXPECT_DOUBLE_EQ(m.total_per_run.min(), 4.0 * kViewsMs);
  EXPECT_DOUBLE_EQ(m.total_per_run.max(), 6.0 * kViewsMs);
  // Not built when not asked.
  const auto lean =
      build_report(load_results(find_results_files(dir.path())), symbols, {.group_spread = false});
  EXPECT_TRUE(lean.flat.function_spread.empty());
  const auto json = render_json(r, {.top = 0});
  EXPECT_NE(
      json.find("\"per_run\": {\"runs\": 2, \"self_ns\": {\"mean\": 4000000, \"min\": 4000000, "
                "\"max\": 4000000, \"stddev\": 0}"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find("\"per_process\": {\"processes\": 4, \"self_ns\": {\"mean\": 2000000"),
            std::string::npos);
}

}  // namespace
}  // namespace cprof::report

namespace cprof::report {
namespace {

// --by module: self time summed by the module the innermost frame is in, a library apart
// from the program, and code no module holds as "[unknown]".
TEST(ModuleView, SelfTimeByModule) {
  testing::TempDir dir;
  {
    testing::ProcessWriter w(dir.path() / "app.host.7.cprof", 7);
    w.add(format::ModuleRecord{.id = 1,
                               .path = "/usr/lib/libm.so.6",
                               .build_id = "1234",
                               .load_bias = 0x7f0000000000,
                               .start = 0x7f0000001000,
                               .end = 0x7f0000100000,
                               .time_ns = 1'000'000'000});
    w.thread(7, "main");
    for (int i = 0; i < 3; ++i) w.sample(7, {0x1010, 0x3011});  // work, in the program
    w.sample(7, {0x2010, 0x3011});                              // helper, in the program
    for (int i = 0; i < 5; ++i) {
      w.add(format::SampleRecord{.tid = 7,
                                 .time_ns = 1'500'000'000,
                                 .weight_ns = 1'000'000,
                                 .frames = {0x7f0000001234, testing::kLoadBias + 0x3011}});
    }
    w.add(format::SampleRecord{.tid = 7,
                               .time_ns = 1'500'000'000,
                               .weight_ns = 1'000'000,
                               .frames = {0x10, testing::kLoadBias + 0x3011}});  // no module
  }
  testing::FakeSymbols symbols;
  testing::add_views_symbols(symbols);
  const Report r = build_report(load_results(find_results_files(dir.path())), symbols, {});
  ASSERT_EQ(r.modules.size(), 3u);
  EXPECT_EQ(r.modules[0].module, "/usr/lib/libm.so.6");
  EXPECT_EQ(r.modules[0].self.samples, 5u);
  EXPECT_EQ(r.modules[1].module, "/usr/bin/app");
  EXPECT_EQ(r.modules[1].self.samples, 4u);
  EXPECT_EQ(r.modules[1].functions, 2u);
  EXPECT_EQ(r.symbols.table.functions[r.modules[1].top_function].name, "work");
  EXPECT_EQ(r.modules[2].module, "[unknown]");
  const std::string text = render_text(r, {.by = RowKind::module});
  EXPECT_NE(text.find("Modules by self time (top 3 of 3)"), std::string::npos) << text;
  EXPECT_NE(text.find(" 50.00%      5 ms           5         1  /usr/lib/libm.so.6"),
            std::string::npos)
      << text;
  const std::string json = render_json(r, {});
  EXPECT_LT(json.find("\"by_module\": ["), json.find("{\"module\": \"/usr/lib/libm.so.6\""))
      << json;
  EXPECT_NE(render_html(r, {}).find("<table id=\"modules\">"), std::string::npos);
}

}  // namespace
}  // namespace cprof::report
