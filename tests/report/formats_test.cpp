// Every output format on the small views profile (views_fixture.h): golden text where the
// format is small (folded, coz), structure checks elsewhere, and each file read back with
// the tool its users read it with: pprof decoded by protoc against profile.proto, the
// SQLite file queried by sqlite3, the HTML page loaded in headless Chromium, JSON parsed
// by Python. A missing tool skips its test with a message saying which.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "report/render/coz_writer.h"
#include "report/render/render.h"
#include "tests/report/tool_shell.h"
#include "tests/report/views_fixture.h"

namespace cprof::report {
namespace {

using testing::TempDir;
using testing::views_report;

struct Shell {
  int status = -1;
  std::string out;
};

Shell shell(const std::string& command) {
  Shell r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;)
    r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool have(const std::string& tool) {
  return shell("command -v " + tool + " >/dev/null 2>&1").status == 0;
}

void write_file(const std::filesystem::path& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Parses JSON with Python's json module; "" when it parses, else the error.
std::string json_error(const std::filesystem::path& file) {
  const auto r = shell("python3 -c 'import json,sys; json.load(open(sys.argv[1]))' " +
                       file.string() + " 2>&1");
  return r.status == 0 ? "" : r.out;
}

TEST(Formats, FoldedIsFlamegraphInput) {
  TempDir dir;
  EXPECT_EQ(render_folded(views_report(dir.path())), "main;compute;helper<int> 4\nmain;work 3\n");
}

TEST(Formats, CozProfileLines) {
  TempDir dir;
  const auto coz = render_coz(views_report(dir.path()), CozStyle::tab_separated);
  EXPECT_EQ(coz,
            "startup\ttime=1700000000000000000\n"
            "samples\tlocation=/src/h.h:5\tcount=4\n"
            "samples\tlocation=/src/w.cpp:10\tcount=3\n"
            "runtime\ttime=500000000\n");
}

TEST(Formats, SpeedscopeOneSampledProfilePerThread) {
  TempDir dir;
  const auto json = render_speedscope(views_report(dir.path()));
  EXPECT_NE(json.find("\"$schema\": \"https://www.speedscope.app/file-format-schema.json\""),
            std::string::npos);
  // One per thread, and one for the CPU time no sample covers (the fixture's process
  // 100 recorded 500 ms of usage for its 4 ms of samples).
  EXPECT_EQ(count(json, "\"type\": \"sampled\""), 3u + 1u);
  EXPECT_NE(json.find("\"name\": \"app[100] rank 0 1 main\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"unit\": \"nanoseconds\""), std::string::npos);
  EXPECT_NE(json.find("{\"name\": \"helper<int>\", \"file\": \"/src/h.h\", \"line\": 5}"),
            std::string::npos)
      << json;
  if (!have("python3")) GTEST_SKIP() << "python3 not installed: JSON not parsed";
  write_file(dir.path() / "s.json", json);
  EXPECT_EQ(json_error(dir.path() / "s.json"), "");
}

// speedscope opens every file in "Time Order", which draws the samples in file order; the
// merged samples came in no particular order, so that first view was a meaningless strip.
// They are written in left-heavy order: heaviest callee first, a function's own samples
// after its callees', so the first view is the left-heavy flame graph.
TEST(Formats, SpeedscopeOpensOnTheLeftHeavyGraph) {
  TempDir dir;
  {
    testing::ProcessWriter w(dir.path() / "app.host.100.cprof", 100);
    w.thread(1, "main");
    constexpr uint64_t kA = 0x1010, kB = 0x2010, kC = 0x4010, kMain = 0x3011, kX = 0x5010;
    const uint64_t ms = testing::kViewsMs;
    w.sample(1, {kA, kMain}, ms);          // main > a: 2 ms in all, written first
    w.sample(1, {kX}, ms);                 // x: 1 ms, a root of its own
    w.sample(1, {kMain}, 2 * ms);          // main itself: 2 ms
    w.sample(1, {kC, kB, kMain}, 3 * ms);  // main > b > c: 3 ms, the heaviest
    w.sample(1, {kA, kMain}, ms);
  }
  testing::FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "a"}});
  symbols.add(0x2000, 0x2100, {{.function = "b"}});
  symbols.add(0x3000, 0x3100, {{.function = "main"}});
  symbols.add(0x4000, 0x4100, {{.function = "c"}});
  symbols.add(0x5000, 0x5100, {{.function = "x"}});
  const Report r = build_report(load_results(find_results_files(dir.path())), symbols);
  const auto json = render_speedscope(r);
  // Frame indices by name, from shared.frames.
  std::map<std::string, size_t> frame;
  const auto frames_end = json.find("\"profiles\"");
  for (size_t at = json.find("{\"name\": \""); at < frames_end;
       at = json.find("{\"name\": \"", at + 1)) {
    const size_t from = at + 10;
    frame.emplace(json.substr(from, json.find('"', from) - from), frame.size());
  }
  const auto stack = [&](const std::vector<std::string>& names) {
    std::string s = "[";
    for (const auto& n : names) s += (s.size() > 1 ? ", " : "") + std::to_string(frame.at(n));
    return s + "]";
  };
  const std::string samples = "\"samples\": [\n        " + stack({"main", "b", "c"}) +
                              ",\n        " + stack({"main", "a"}) + ",\n        " +
                              stack({"main"}) + ",\n        " + stack({"x"}) + "\n      ]";
  EXPECT_NE(json.find(samples), std::string::npos) << samples << "\n" << json;
  EXPECT_NE(json.find("\"weights\": [3000000, 2000000, 2000000, 1000000]"), std::string::npos)
      << json;
}

TEST(Formats, ChromeTraceFlameChartPerThread) {
  TempDir dir;
  const auto json = render_chrome(views_report(dir.path(), false, /*timeline=*/true));
  // Three consecutive samples of main > work on thread 1 are one slice each for main and work.
  EXPECT_EQ(count(json, "\"name\": \"work\""), 1u) << json;
  EXPECT_EQ(count(json, "\"ph\": \"B\""), count(json, "\"ph\": \"E\""));
  EXPECT_NE(json.find("\"name\": \"thread_name\", \"args\": {\"name\": \"worker\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"name\": \"process_name\", \"args\": {\"name\": \"app[101] rank 1\"}"),
            std::string::npos);
  // The first sample ends 1 ms after 1.1 s since start and began 1 ms before: ts 100000 us.
  EXPECT_NE(json.find("\"tid\": 1, \"ts\": 100000, \"name\": \"main\""), std::string::npos) << json;
  if (!have("python3")) GTEST_SKIP() << "python3 not installed: JSON not parsed";
  write_file(dir.path() / "t.json", json);
  EXPECT_EQ(json_error(dir.path() / "t.json"), "");
}

// The rules of the Firefox Profiler's processed-profile schema (version 57: docs/report.md,
// "firefox"), checked by a script since no client of it runs offline; then what each
// thread holds, stacks by function names with their summed weights.
constexpr const char* kFirefoxSchemaCheck = R"(
meta, strings, libs = d['meta'], d['shared']['stringArray'], d['libs']
assert meta['preprocessedProfileVersion'] == 57 and meta['interval'] > 0, meta
assert all(isinstance(s, str) for s in strings)
cats = meta['categories']
assert any(c['color'] == 'grey' for c in cats) and all(c['subcategories'][0] == 'Other' for c in cats)
for lib in libs:
  assert set(lib) == {'arch', 'name', 'path', 'debugName', 'debugPath', 'breakpadId', 'codeId'}, lib
def table(t, columns, scalars=()):
  assert set(t) == set(columns) | set(scalars) | {'length'}, (sorted(t), columns)
  for c in columns: assert len(t[c]) == t['length'], c
def index(i, n, nullable=False):
  assert (nullable and i is None) or (isinstance(i, int) and 0 <= i < n), (i, n)
for th in d['threads']:
  for k in ['name', 'processName', 'processType', 'pid', 'tid', 'isMainThread', 'processStartupTime',
            'processShutdownTime', 'registerTime', 'unregisterTime', 'pausedRanges']:
    assert k in th, k
  assert isinstance(th['pid'], str)
  st, fr, fn, rs = th['stackTable'], th['frameTable'], th['funcTable'], th['resourceTable']
  table(st, ['frame', 'prefix'])
  table(fr, ['address', 'inlineDepth', 'category', 'subcategory', 'func', 'nativeSymbol',
             'innerWindowID', 'line', 'column'])
  table(fn, ['name', 'isJS', 'relevantForJS', 'resource', 'fileName', 'lineNumber', 'columnNumber'])
  table(rs, ['lib', 'name', 'host', 'type'])
  table(th['nativeSymbols'], ['libIndex', 'address', 'name', 'functionSize'])
  table(th['markers'], ['data', 'name', 'startTime', 'endTime', 'phase', 'category'])
  table(th['samples'], ['stack', 'time', 'weight'], ['weightType'])
  for i in range(st['length']):
    index(st['frame'][i], fr['length'])
    index(st['prefix'][i], i, nullable=True)
  for i in range(fr['length']):
    index(fr['func'][i], fn['length'])
    index(fr['category'][i], len(cats))
    index(fr['subcategory'][i], len(cats[fr['category'][i]]['subcategories']))
  for i in range(fn['length']):
    index(fn['name'][i], len(strings))
    index(fn['fileName'][i], len(strings), nullable=True)
    assert fn['resource'][i] == -1 or 0 <= fn['resource'][i] < rs['length']
  for i in range(rs['length']):
    index(rs['lib'][i], len(libs))
    index(rs['name'][i], len(strings))
  s = th['samples']
  assert s['weightType'] in ('samples', 'tracing-ms', 'bytes')
  assert all(a <= b for a, b in zip(s['time'], s['time'][1:])), 'time order'
  def names(k):
    out = []
    while k is not None:
      f = st['frame'][k]
      out.append(strings[fn['name'][fr['func'][f]]] + ('@%d' % fr['inlineDepth'][f] if fr['inlineDepth'][f] else ''))
      k = st['prefix'][k]
    return '>'.join(reversed(out))
  stacks = {}
  for k, w in zip(s['stack'], s['weight']): stacks[names(k)] = stacks.get(names(k), 0) + w
  print('%s|%s|%s|%d|%s|%s' % (th['name'], th['processName'], th['pid'], th['tid'],
        ' '.join('%s=%g' % kv for kv in sorted(stacks.items())), s['time'][:1]))
)";

TEST(Formats, FirefoxProfileHoldsTheSchemasInvariants) {
  TempDir dir;
  const auto json = render_firefox(views_report(dir.path(), false, /*timeline=*/true));
  if (!have("python3")) GTEST_SKIP() << "python3 not installed: the schema not checked";
  write_file(dir.path() / "f.json", json);
  // Hottest thread first; helper<int> inlined into compute is a frame of its own one level
  // deeper; the unsampled CPU time of process 100 is a thread of its own, last.
  EXPECT_EQ(testing::python_on_json(dir.path() / "f.json", kFirefoxSchemaCheck),
            "main|app[100] rank 0|100|1|main>work=3|[101]\n"
            "main|app[101] rank 1|101|7|main>compute>helper<int>@1=3|[105]\n"
            "worker|app[100] rank 0|100|2|main>compute>helper<int>@1=1|[104]\n"
            "[unsampled CPU time]|[unsampled CPU time: processes and threads without a "
            "sample]|0|0|[unsampled: start-up and last periods of sampled processes]=496|[0]\n")
      << json;
}

TEST(Formats, ChromeDownsamplesToABudgetOfSlices) {
  TempDir dir;
  // 7 samples of 2 frames, at most 12 events: 3 slices of up to 3 samples of one thread,
  // drawn with their most frequent stack. Thread 2's single sample is its own slice.
  const auto json = render_chrome(views_report(dir.path(), false, true), 12);
  EXPECT_NE(json.find("\"samples_per_slice\": 3"), std::string::npos) << json;
  EXPECT_EQ(count(json, "\"ph\": \"B\""), count(json, "\"ph\": \"E\""));
  EXPECT_EQ(count(json, "\"name\": \"work\""), 1u) << json;
  EXPECT_EQ(count(json, "\"name\": \"helper<int>\""), 2u) << json;  // tid 2 and tid 7
}

TEST(Formats, ChromeWithoutTimelineHasOnlyNames) {
  TempDir dir;
  const auto json = render_chrome(views_report(dir.path(), false, false));
  EXPECT_EQ(count(json, "\"ph\": \"B\""), 0u);
  EXPECT_NE(json.find("process_name"), std::string::npos);
}

TEST(Formats, PprofDecodesWithProtoc) {
  TempDir dir;
  const auto gz = render_pprof(views_report(dir.path()));
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  if (!have("protoc") || !have("gzip"))
    GTEST_SKIP() << "protoc or gzip not installed: pprof not decoded";
  write_file(dir.path() / "p.pb.gz", gz);
  const std::string proto_dir = CPROF_REPORT_TEST_DIR;
  const auto r = shell("gzip -dc " + (dir.path() / "p.pb.gz").string() +
                       " | protoc --decode=perftools.profiles.Profile -I " + proto_dir + " " +
                       proto_dir + "/profile.proto 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto& text = r.out;
  // (process, thread, stack) groups, and the CPU time no sample covers (the fixture's
  // process 100 recorded 500 ms of usage for its 4 ms of samples) on a function of its own.
  EXPECT_EQ(count(text, "\nsample {"), 3u + 1u) << text;
  EXPECT_EQ(count(text, "\nfunction {"), 5u + 1u)
      << text;  // [unknown], work, helper<int>, compute, main, [unsampled: ...]
  for (const char* needle :
       {"string_table: \"helper<int>\"", "string_table: \"tid\"", "string_table: \"pid\"",
        "string_table: \"thread\"", "string_table: \"app[101] rank 1\"",
        "string_table: \"/usr/bin/app\"", "value: 3\n  value: 3000000", "has_inline_frames: true",
        "period: 1000000"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
  // The inlined helper and compute share one location: two lines, innermost first.
  EXPECT_NE(text.find("line {\n    function_id: 3\n    line: 5\n  }\n  line {\n    function_id: "
                      "4\n    line: 20"),
            std::string::npos)
      << text;
}

TEST(Formats, SqliteQueriedWithTheShell) {
  TempDir dir;
  const auto db = dir.path() / "profile.db";
  ASSERT_EQ(write_sqlite(views_report(dir.path()), db.string()), "");
  ASSERT_TRUE(std::filesystem::exists(db));
  if (!have("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: database not queried";
  const auto q = [&](const std::string& sql) {
    return shell("sqlite3 " + db.string() + " \"" + sql + "\" 2>&1");
  };
  EXPECT_EQ(q("SELECT function, samples, time_ns FROM function_self").out,
            "helper<int>|4|4000000\nwork|3|3000000\n");
  EXPECT_EQ(q("SELECT pid, rank, peak_rss_bytes, cpu_utilization FROM processes ORDER BY id").out,
            "100|0|20000000|1.0\n101|1|0|\n");
  EXPECT_EQ(
      q("SELECT t.tid, t.name, SUM(s.count) FROM samples s JOIN threads t ON t.id = s.thread_id "
        "GROUP BY t.id ORDER BY t.id")
          .out,
      "1|main|3\n2|worker|1\n7|main|3\n");
  EXPECT_EQ(q("SELECT name, status, detail FROM events WHERE status != 'ok'").out,
            "cache-misses|unavailable|perf_event_open: No such file or directory\n");
  EXPECT_EQ(
      q("SELECT e.name, SUM(c.value) FROM sample_counters c JOIN threads t ON t.id = c.thread_id "
        "JOIN events e ON e.process_id = t.process_id AND e.event_index = c.event_index GROUP BY "
        "e.name "
        "ORDER BY e.name")
          .out,
      "cycles|4000\ninstructions|6500\n");
  EXPECT_EQ(q("SELECT COUNT(*) FROM stack_frames").out,
            "6\n");  // 2 stacks of 2 frames in pid 100, 1 in pid 101
  EXPECT_EQ(q("SELECT value FROM meta WHERE key = 'schema_version'").out, "1\n");
}

TEST(Formats, HtmlEscapesAndLoadsInHeadlessChromium) {
  TempDir dir;
  const auto html = render_html(views_report(dir.path()), {.top = 0});
  EXPECT_NE(html.find("helper&lt;int&gt;"), std::string::npos);
  // Unescaped only as JSON in the flame graph's data block, which HTML does not parse.
  ASSERT_NE(html.find("<script type=\"application/json\" id=\"flame-data\">"), std::string::npos);
  const std::string outside = testing::without_flame_scripts(html);
  EXPECT_EQ(outside.find("helper<int>"), std::string::npos) << "a name not escaped";
  EXPECT_EQ(outside.find("<script"), std::string::npos) << "a script of another kind";
  EXPECT_NE(html.find("<section id=\"causal\">"), std::string::npos);
  EXPECT_EQ(html.find("http://") == std::string::npos ||
                html.find("http://www.w3.org/2000/svg") != std::string::npos,
            true);
  const auto file = dir.path() / "report.html";
  write_file(file, html);
  std::string chromium;
  for (const char* c : {"chromium", "chromium-browser", "google-chrome"}) {
    if (have(c)) {
      chromium = c;
      break;
    }
  }
  if (chromium.empty())
    GTEST_SKIP() << "chromium not installed (Debian package chromium): HTML not loaded";
  const std::string flags = " --headless --no-sandbox --disable-gpu --user-data-dir=" +
                            (dir.path() / "chromium-profile").string() + " ";
  const auto dom = shell("HOME=" + dir.path().string() + " timeout 120 " + chromium + flags +
                         "--dump-dom file://" + file.string() + " 2>/dev/null");
  ASSERT_EQ(dom.status, 0) << dom.out;
  // The parsed DOM has the tables with their rows and the icicle's boxes.
  EXPECT_NE(dom.out.find("<table id=\"functions\">"), std::string::npos) << dom.out;
  EXPECT_NE(dom.out.find("<td class=\"name\">helper&lt;int&gt;</td>"), std::string::npos)
      << dom.out;
  EXPECT_NE(dom.out.find("<table id=\"threads\">"), std::string::npos);
  EXPECT_NE(dom.out.find("<table id=\"counters\">"), std::string::npos);
  EXPECT_NE(dom.out.find("<table id=\"ranks\">"), std::string::npos);
  // The static icicle's main, compute, helper<int>, work, and the flame graph's the same
  // under its root box, "all".
  const std::regex box(R"re(<rect x="\d)re");
  EXPECT_EQ(std::distance(std::sregex_iterator(dom.out.begin(), dom.out.end(), box),
                          std::sregex_iterator()),
            4 + 5)
      << dom.out;
  // And it paints: a screenshot is written and is not tiny.
  const auto png = dir.path() / "shot.png";
  const auto shot = shell("HOME=" + dir.path().string() + " timeout 120 " + chromium + flags +
                          "--window-size=1300,900 --screenshot=" + png.string() + " file://" +
                          file.string() + " >/dev/null 2>&1");
  EXPECT_EQ(shot.status, 0);
  ASSERT_TRUE(std::filesystem::exists(png));
  EXPECT_GT(std::filesystem::file_size(png), 10'000u);
}

}  // namespace
}  // namespace cprof::report
