// The text table and the JSON document for a small known profile: the header says what
// ran and what did not, rows are in order, lines fit 100 columns, JSON keeps the
// documented field names.
#include <gtest/gtest.h>
#include <zlib.h>

#include <sstream>

#include "report/render/json_writer.h"
#include "report/render/render.h"
#include "report/render/text_util.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"

namespace cprof::report {
namespace {

using testing::FakeSymbols;
using testing::ProcessWriter;
using testing::TempDir;

constexpr uint64_t kMs = 1'000'000;

Report small_report(const std::filesystem::path& dir, const std::string& long_name = "compute") {
  {
    ProcessWriter w(dir / "app.host.100.cprof", 100, 0);
    w.thread(1, "main");
    for (int i = 0; i < 3; ++i) w.sample(1, {0x1010, 0x3011}, kMs);
    w.sample(2, {0x2010, 0x3011}, kMs);
    w.add(format::EventRecord{.index = 0,
                              .name = "cycles",
                              .status = format::EventStatus::unavailable,
                              .detail = "no PMU"});
    w.add(format::MessageRecord{.level = format::MessageLevel::warning, .text = "3 stacks truncated"});
  }
  FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
  symbols.add(0x2000, 0x2100, {{.function = long_name, .file = "/src/deep/dir/c.cpp", .line = 20}});
  symbols.add(0x3000, 0x3100, {{.function = "main", .file = "/src/m.cpp", .line = 30}});
  return build_report(load_results(find_results_files(dir)), symbols);
}

std::string gunzip(const std::string& gz) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return "";
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[4096];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END ? out : "";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(TextUtil, Formats) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(1234567), "1,234,567");
  EXPECT_EQ(human_duration(850), "850 ns");
  EXPECT_EQ(human_duration(12'300'000), "12.3 ms");
  EXPECT_EQ(human_duration(4'560'000'000), "4.56 s");
  EXPECT_EQ(fit_right("abcdefgh", 6), "abc...");
  EXPECT_EQ(fit_left("abcdefgh", 6), "...fgh");
}

TEST(TextReport, HeaderAndRows) {
  TempDir dir;
  const auto text = render_text(small_report(dir.path()), {});
  const auto lines = lines_of(text);
  ASSERT_GE(lines.size(), 8u) << text;
  EXPECT_EQ(lines[0], "causal-report: 1 process, 2 threads, 4 samples, 4 ms sampled; symbols: fake");
  EXPECT_EQ(lines[1],
            "  app[100] rank 0 on testhost: timer cpu clock 1000 Hz; ran 500 ms, 2 threads, 4 samples");
  EXPECT_EQ(lines[2], "unavailable event: cycles (no PMU)");
  EXPECT_EQ(lines[3], "message warning: 3 stacks truncated");
  EXPECT_NE(text.find("Functions by self time (top 3 of 3; 4 samples with a stack in 2 threads)"),
            std::string::npos);
  const auto first = std::find_if(lines.begin(), lines.end(),
                                  [](const std::string& l) { return l.find("work") != std::string::npos; });
  ASSERT_NE(first, lines.end());
  EXPECT_EQ(first->substr(0, 39), " 75.00%  75.00%      3 ms           3  ");
  EXPECT_TRUE(first->ends_with("w.cpp:10")) << *first;
  EXPECT_NE(text.find("  0.00% 100.00%      0 ns           0  main"), std::string::npos) << text;
}

// An event that counted, but not as asked (the runtime fell back to user level), says so
// in the text header and the html notes.
TEST(TextReport, EventCountedNotAsAskedSaysHow) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.100.cprof", 100, 0);
    w.thread(1, "main");
    w.sample(1, {0x1010}, kMs);
    w.add(format::EventRecord{.index = 0,
                              .name = "page-faults",
                              .canonical_name = "perf::PERF_COUNT_SW_PAGE_FAULTS:u",
                              .status = format::EventStatus::ok,
                              .detail = "user only: perf_event_paranoid=2"});
    w.add(format::EventRecord{.index = 1, .name = "cs", .status = format::EventStatus::ok});
  }
  FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
  const Report r = build_report(load_results(find_results_files(dir.path())), symbols);
  const auto text = render_text(r, {});
  EXPECT_NE(text.find("\nevent page-faults counted user only: perf_event_paranoid=2\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("event cs"), std::string::npos) << text;  // counted as asked
  const auto html = render_html(r, {});
  EXPECT_NE(html.find("<li>event <code>page-faults</code> counted user only: "
                      "perf_event_paranoid=2 in 1 of 1 process</li>"),
            std::string::npos);
}

// One process of one thread with one sample in `work`, and the cycles event unavailable
// for `why`.
void write_one_sample_and_no_cycles(const std::filesystem::path& dir, const std::string& why) {
  ProcessWriter w(dir / "app.host.100.cprof", 100, 0);
  w.thread(1, "main");
  w.sample(1, {0x1010}, kMs);
  w.add(format::EventRecord{
      .index = 0, .name = "cycles", .status = format::EventStatus::unavailable, .detail = why});
}

// The symbol of that sample.
void add_work(FakeSymbols& symbols) {
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
}

// The reason a counter is unavailable is longer than the line: it was cut at 100
// columns, mid-word ("... (the event does not exist h..."). It wraps at a word break now.
TEST(TextReport, LongEventReasonIsWrappedNotCut) {
  TempDir dir;
  write_one_sample_and_no_cycles(dir.path(),
                                 "perf_event_open: No such file or directory (the event does "
                                 "not exist here: no hardware PMU, e.g. in a VM)");
  FakeSymbols symbols;
  add_work(symbols);
  const auto text =
      render_text(build_report(load_results(find_results_files(dir.path())), symbols), {});
  const auto lines = lines_of(text);
  const auto at = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("unavailable event: cycles");
  });
  ASSERT_NE(at, lines.end()) << text;
  ASSERT_NE(at + 1, lines.end()) << text;
  EXPECT_LE(at->size(), 100u) << *at;
  EXPECT_FALSE(at->ends_with("...")) << *at;
  EXPECT_EQ(*at + "\n" + at[1],
            "unavailable event: cycles (perf_event_open: No such file or directory (the event "
            "does not exist\n      here: no hardware PMU, e.g. in a VM))");
}

// A count of one reads in the singular in every format: pprof's comment said "1
// processes", the HTML summary "1 threads, 1 samples", speedscope's name "1 processes,
// 1 threads", the HTML notes "in 1 of 1 processes", the tree "(1 nodes)".
TEST(Reports, CountsOfOneAreSingularInEveryFormat) {
  TempDir dir;
  write_one_sample_and_no_cycles(dir.path(), "no PMU");
  FakeSymbols symbols;
  add_work(symbols);
  const Report r =
      build_report(load_results(find_results_files(dir.path())), symbols, {.call_tree = true});
  const auto text = render_text(r, {.view = View::tree});
  EXPECT_NE(text.find("causal-report: 1 process, 1 thread, 1 sample,"), std::string::npos) << text;
  EXPECT_NE(text.find("Call tree, top-down (1 node;"), std::string::npos) << text;
  const auto html = render_html(r, {});
  EXPECT_NE(html.find(">1 process, 1 thread, 1 sample, "), std::string::npos);
  EXPECT_NE(html.find("in 1 of 1 process</li>"), std::string::npos);
  EXPECT_NE(render_speedscope(r).find("\"name\": \"causal-report: 1 process, 1 thread\""),
            std::string::npos);
  const std::string pprof = gunzip(render_pprof(r));
  EXPECT_NE(pprof.find("causal-report: 1 process"), std::string::npos);
  for (const std::string& out : {text, html, pprof}) {
    for (const char* plural : {"1 processes", "1 threads", "1 samples", "1 nodes"})
      EXPECT_EQ(out.find(plural), std::string::npos) << plural;
  }
}

// A process killed by SIGKILL (or whose file was cut) leaves no end record. The loader's
// warning names the file on stderr only, and the text header said "cut short" only on the
// process line of the eight processes it lists: with -q, or among many processes, the
// run looked whole. Each such process now has a warning line in the text header and the
// HTML notes, saying where its data stops; JSON says "complete": false.
TEST(Reports, AProcessWithoutItsEndRecordIsSaidToBeCutShort) {
  TempDir dir;
  for (int64_t pid = 100; pid < 110; ++pid) {  // nine busy processes, then the killed one
    ProcessWriter w(dir.path() / ("app.host." + std::to_string(pid) + ".cprof"), pid);
    for (int n = 0; n < 3; ++n) w.sample(1, {0x1010}, kMs);
  }
  const auto killed = dir.path() / "app.host.9.cprof";
  uint64_t end_chunk = 0;
  {
    ProcessWriter w(killed, 9);
    w.sample(1, {0x1010}, kMs);
    w.flush();
    end_chunk = w.bytes_written();
  }
  std::filesystem::resize_file(killed, end_chunk);  // the end record's chunk is gone
  FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
  const Report r = build_report(load_results(find_results_files(dir.path())), symbols);
  const std::string said =
      "warning: app[9]: no end record (killed by SIGKILL, still running, or its file was cut): "
      "its data stops ";
  const auto text = render_text(r, {.width = 200});
  EXPECT_NE(text.find("\n" + said), std::string::npos) << text;
  EXPECT_NE(render_html(r, {}).find("<li>" + said), std::string::npos);
  EXPECT_NE(render_json(r, {}).find("\"complete\": false"), std::string::npos);
}

// Past eight processes the header lists those with the most samples, most first, and
// counts the rest with their samples: a script's helpers do not hide the program.
TEST(TextReport, ManyProcessesListTheBusiestFirst) {
  TempDir dir;
  for (int64_t i = 0; i < 10; ++i) {  // app[100] has 1 sample, ..., app[109] has 10
    ProcessWriter w(dir.path() / ("app.host." + std::to_string(100 + i) + ".cprof"), 100 + i);
    for (int64_t n = 0; n <= i; ++n) w.sample(1, {0x1010}, kMs);
  }
  FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
  const auto r = build_report(load_results(find_results_files(dir.path())), symbols);
  const auto lines = lines_of(render_text(r, {.width = 300}));
  ASSERT_GT(lines.size(), 10u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(lines[1 + i].find("  app[" + std::to_string(109 - i) + "]"), 0u) << lines[1 + i];
  }
  EXPECT_EQ(lines[9], "  ... and 2 more processes, 3 samples");
}

TEST(TextReport, EveryLineFits100ColumnsWithLongNames) {
  TempDir dir;
  const std::string long_name = "std::vector<std::map<std::string, int>> ns::Klass<T>::method(" +
                                std::string(150, 'x') + ")";
  const auto report = small_report(dir.path(), long_name);
  for (const auto by : {RowKind::function, RowKind::line}) {
    const auto text = render_text(report, {.by = by});
    for (const auto& l : lines_of(text)) EXPECT_LE(l.size(), 100u) << l;
    EXPECT_NE(text.find("..."), std::string::npos);
  }
}

TEST(TextReport, TopAndByLine) {
  TempDir dir;
  const auto report = small_report(dir.path());
  const auto text = render_text(report, {.top = 1, .by = RowKind::line});
  EXPECT_NE(text.find("Lines by self time (top 1 of 3;"), std::string::npos) << text;
  EXPECT_NE(text.find("w.cpp:10  work"), std::string::npos) << text;
  EXPECT_EQ(text.find("c.cpp"), std::string::npos) << text;
}

TEST(JsonReport, ProfileFields) {
  TempDir dir;
  const auto json = render_json(small_report(dir.path()), {.top = 0});
  for (const char* needle :
       {"\"schema_version\": 1", "\"profile\": {", "\"functions\": [", "\"lines\": [",
        "\"function\": \"work\"", "\"file\": \"/src/w.cpp\"", "\"line\": 10",
        "\"samples\": 3", "\"fraction\": 0.75", "\"self\": {", "\"total\": {",
        "\"per_thread\": {", "\"threads\": 2", "\"self_ns\": {", "\"total_ns\": {",
        "\"mean\": 1500000", "\"min\": 0", "\"max\": 3000000", "\"stddev\": 2121320.34355964",
        "\"location\": \"/src/w.cpp:10\"", "\"status\": \"unavailable\"", "\"rank\": 0"}) {
    EXPECT_NE(json.find(needle), std::string::npos) << needle << "\n" << json;
  }
  // Balanced and ends in a newline.
  EXPECT_EQ(std::count(json.begin(), json.end(), '{'), std::count(json.begin(), json.end(), '}'));
  EXPECT_EQ(std::count(json.begin(), json.end(), '['), std::count(json.begin(), json.end(), ']'));
  EXPECT_EQ(json.back(), '\n');
}

TEST(JsonWriter, EscapesAndNesting) {
  std::string out;
  JsonWriter j(out);
  j.begin_object().field("a\"b", "x\ny\x01").key("list").begin_array();
  j.value(uint64_t{1}).value(-2).value(0.5).value(std::nan("")).value(true);
  j.end_array().key("empty").begin_object().end_object();
  j.key("row").begin_object(true).field("n", 1).key("in").begin_object().field("m", 2).end_object();
  j.end_object().end_object();
  EXPECT_EQ(out,
            "{\n  \"a\\\"b\": \"x\\ny\\u0001\",\n  \"list\": [\n    1,\n    -2,\n    0.5,\n"
            "    null,\n    true\n  ],\n  \"empty\": {},\n"
            "  \"row\": {\"n\": 1, \"in\": {\"m\": 2}}\n}\n");
}

}  // namespace
}  // namespace cprof::report

namespace cprof::report {
namespace {

TEST(CompactFunctionName, DropsWhatSaysLeastFirst) {
  const std::string name = "(anonymous namespace)::multiply_matrices(int) (.constprop.0)";
  EXPECT_EQ(compact_function_name(name, 80), name);
  EXPECT_EQ(compact_function_name(name, 45), "(anonymous namespace)::multiply_matrices(int)");
  EXPECT_EQ(compact_function_name(name, 30), "(anon)::multiply_matrices(int)");
  EXPECT_EQ(compact_function_name("std::vector<std::pair<int, long>, std::allocator<int>>::push_back(int&&)", 40),
            "std::vector<...>::push_back(int&&)");
  EXPECT_EQ(compact_function_name("ns::f(std::map<int, int> const&, int)", 12), "ns::f(...)");
  EXPECT_LE(compact_function_name("a_very_long_function_name_without_parts", 10).size(), 10u);
}

}  // namespace
}  // namespace cprof::report
