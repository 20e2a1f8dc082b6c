// Everything accounted (report/profile/cpu_accounting.h): processes and threads too short
// for a sample still count, with the CPU time their usage recorded, in the totals and in
// every view; the report says what share of the recorded CPU time the samples cover. And
// the process's name in every format, its command line (ProcessProfile::label), and long
// tables cut with a count of what they leave out.
#include "report/profile/cpu_accounting.h"

#include <gtest/gtest.h>

#include <sstream>

#include "format/writer.h"
#include "report/load/json_value.h"
#include "report/render/render.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

using testing::FakeSymbols;
using testing::TempDir;

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kUs = 1'000;
constexpr uint64_t kStart = 1'000 * kMs;

struct Image {
  int64_t pid = 0;
  std::string executable;
  std::vector<std::string> command_line;
  uint64_t start_ns = kStart;
  uint64_t samples = 0;  // 1 ms CPU-clock samples of its main thread
  uint64_t cpu_ns = 0;   // its usage: the main thread's thread_end and the metric record
  uint64_t end_ns = 0;   // its last record; start + 1 ms when 0
};

// One results file, as the sampler writes it for a process that ran `image`.
void write_image(const std::filesystem::path& dir, const Image& image) {
  static int files = 0;
  format::ResultsWriter w;
  ASSERT_EQ(w.open((dir / ("p" + std::to_string(files++) + ".cprof")).string()), "");
  w.add(format::ProcessRecord{.pid = image.pid,
                              .ppid = 1,
                              .hostname = "testhost",
                              .executable = image.executable,
                              .command_line = image.command_line,
                              .start_realtime_ns = 1'700'000'000'000'000'000,
                              .start_monotonic_ns = image.start_ns,
                              .engine = "perf_event",
                              .clock = "cpu",
                              .unwinder = "dwarf",
                              .frequency_hz = 1000,
                              .period_ns = kMs});
  w.add(format::ModuleRecord{.id = 0,
                             .path = image.executable,
                             .build_id = "abcdef",
                             .load_bias = testing::kLoadBias,
                             .start = testing::kModuleStart,
                             .end = testing::kModuleEnd,
                             .time_ns = image.start_ns});
  w.add(format::ThreadRecord{.tid = image.pid, .name = "main", .time_ns = image.start_ns});
  for (uint64_t i = 0; i < image.samples; ++i) {
    w.add(format::SampleRecord{.tid = image.pid,
                               .time_ns = image.start_ns + (i + 1) * kMs,
                               .weight_ns = kMs,
                               .frames = {testing::kLoadBias + 0x1010}});
  }
  const uint64_t end = image.end_ns ? image.end_ns : image.start_ns + kMs;
  if (image.cpu_ns > 0) {
    w.add(format::ThreadEndRecord{.tid = image.pid, .time_ns = end, .cpu_time_ns = image.cpu_ns});
    w.add(format::MetricRecord{.time_ns = end, .cpu_user_ns = image.cpu_ns});
  }
  w.close();
}

Report report_of(const std::filesystem::path& dir) {
  FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
  return build_report(load_results(find_results_files(dir)), symbols, {.call_tree = true});
}

// xargs sampled for 10 ms of its 12 ms; 30 basename runs of 0.6 ms, none sampled.
void write_xargs_run(const std::filesystem::path& dir) {
  write_image(dir, {.pid = 100,
                    .executable = "/usr/bin/xargs",
                    .command_line = {"xargs", "-n1", "basename"},
                    .samples = 10,
                    .cpu_ns = 12 * kMs,
                    .end_ns = kStart + 500 * kMs});
  for (int64_t i = 0; i < 30; ++i) {
    write_image(dir, {.pid = 200 + i,
                      .executable = "/usr/bin/basename",
                      .command_line = {"basename", "/usr/lib/f" + std::to_string(i)},
                      .start_ns = kStart + static_cast<uint64_t>(i) * 10 * kMs,
                      .cpu_ns = 600 * kUs});
  }
}

// The first line of `text` with `part` in it, after the line that starts `after`.
std::string line_with(const std::string& text, const std::string& part,
                      const std::string& after = "") {
  std::istringstream in(text.substr(after.empty() ? 0 : text.find("\n" + after) + 1));
  for (std::string l; std::getline(in, l);) {
    if (l.find(part) != std::string::npos) return l;
  }
  return "";
}

TEST(CpuAccounting, ShortProcessesWithoutASampleAreCounted) {
  TempDir dir;
  write_xargs_run(dir.path());
  const auto r = report_of(dir.path());
  ASSERT_EQ(r.processes.size(), 31u);
  EXPECT_EQ(r.cpu.recorded_ns, 30 * kMs);  // 12 ms + 30 × 0.6 ms
  EXPECT_EQ(r.cpu.sampled_ns, 10 * kMs);
  EXPECT_EQ(r.cpu.unsampled_ns, 20 * kMs);
  EXPECT_NEAR(r.cpu.coverage(), 1.0 / 3, 1e-9);
  ASSERT_EQ(r.cpu.unsampled_processes.size(), 1u);
  const auto& g = r.cpu.unsampled_processes[0];
  EXPECT_EQ(g.executable, "basename");
  EXPECT_TRUE(g.short_processes);
  EXPECT_EQ(g.members.size(), 30u);
  EXPECT_EQ(g.cpu_time_ns, 18 * kMs);
  EXPECT_EQ(r.cpu.unsampled_other_ns(), 2 * kMs);  // xargs's own, beyond its samples
  EXPECT_EQ(r.accounted_ns(), 30 * kMs);
}

TEST(CpuAccounting, TextSaysWhatTheSamplesCoverAndWhatRanUnsampled) {
  TempDir dir;
  write_xargs_run(dir.path());
  const auto r = report_of(dir.path());
  const auto text = render_text(r, {.width = 200});
  EXPECT_NE(text.find("CPU time recorded: 30 ms; samples cover 33.3% of it (10 ms); unsampled 20 "
                      "ms: 30 short processes of basename 18 ms;"),
            std::string::npos)
      << text;
  // The flat profile has no stack to give it: a line under the table says it is left out.
  EXPECT_NE(text.find("(not shown: 20 ms of CPU time without samples, 66.6% of the 30 ms "
                      "recorded; see --by process)"),
            std::string::npos)
      << text;
  // By process: one row for the 30, ranked by their CPU time among the sampled ones, each
  // share of all time accounted.
  const auto by_process = render_text(r, {.by = RowKind::process});
  const auto group = line_with(by_process, "[unsampled: 30 short processes of basename]");
  EXPECT_EQ(group, " 60.00%     18 ms          -  [unsampled: 30 short processes of basename]")
      << by_process;
  const auto table = by_process.substr(by_process.find("Processes by time"));
  const auto xargs = line_with(table, "[100]");
  EXPECT_EQ(xargs,
            " 33.33%     10 ms         10       1    0.0 MB     -         0/0         0/0  "
            "xargs -n1 bas... [100]");
  EXPECT_LT(table.find("[unsampled: 30"), table.find("[100]"));
  EXPECT_EQ(table.find("basename /usr/lib/f"), std::string::npos) << table;
  const auto by_thread = render_text(r, {.by = RowKind::thread});
  EXPECT_NE(by_thread.find(" 60.00%     18 ms           -     18 ms  [unsampled: 30 short "
                           "processes of basename]"),
            std::string::npos)
      << by_thread;
}

TEST(CpuAccounting, JsonAndHtmlSayItToo) {
  TempDir dir;
  write_xargs_run(dir.path());
  const auto r = report_of(dir.path());
  const auto json = render_json(r, {.top = 0});
  EXPECT_NE(json.find("\"cpu_recorded_ns\": 30000000,\n    \"cpu_sampled_ns\": 10000000,\n    "
                      "\"cpu_unsampled_ns\": 20000000,\n    \"cpu_coverage\": 0.3333"),
            std::string::npos)
      << json.substr(0, 600);
  EXPECT_NE(json.find("\"label\": \"[unsampled: 30 short processes of basename]\", \"executable\": "
                      "\"basename\", \"short\": true, \"processes\": 30, \"cpu_time_ns\": "
                      "18000000, \"share\": 0.6"),
            std::string::npos)
      << json;
  const auto html = render_html(r, {.top = 0});
  EXPECT_NE(html.find("data-cpu-recorded-ns=\"30000000\" data-cpu-coverage=\"0.3333\""),
            std::string::npos);
  EXPECT_NE(html.find("<p id=\"cpu-coverage\">CPU time recorded: 30 ms; samples cover 33.3%"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"name\">[unsampled: 30 short processes of basename]</td>"),
            std::string::npos);
}

// The formats of stacks have a frame of their own for each group of CPU time no sample
// covers, so that their totals hold it too: speedscope a profile of it, pprof a sample
// per group (label unsampled), chrome's trace (a timeline cannot place it) says it in
// otherData. Before, all three showed the 10 ms of samples alone.
TEST(CpuAccounting, SpeedscopePprofAndChromeHoldTheUnsampledTime) {
  TempDir dir;
  write_xargs_run(dir.path());
  const auto r = report_of(dir.path());
  const JsonValue speedscope = parse_json(render_speedscope(r));
  const auto& frames = speedscope.find("shared")->find("frames")->items;
  const auto& profiles = speedscope.find("profiles")->items;
  ASSERT_EQ(profiles.size(), 2u);  // xargs's thread, then the unsampled time
  const auto& unsampled = profiles.back();
  EXPECT_EQ(unsampled.find("name")->text,
            "[unsampled CPU time: processes and threads without a sample]");
  EXPECT_EQ(unsampled.find("endValue")->text, "20000000");
  std::vector<std::string> rows;
  for (size_t i = 0; i < unsampled.find("samples")->items.size(); ++i) {
    const auto& stack = unsampled.find("samples")->items[i].items;
    ASSERT_EQ(stack.size(), 1u);
    rows.push_back(frames.at(std::stoul(stack[0].text)).find("name")->text + " " +
                   unsampled.find("weights")->items[i].text);
  }
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "[unsampled: 30 short processes of basename] 18000000",
                      "[unsampled: start-up and last periods of sampled processes] 2000000"}));

  const std::string chrome = render_chrome(r);
  EXPECT_NE(chrome.find("\"cpu_recorded_ns\": 30000000,"), std::string::npos)
      << chrome.substr(0, 800);
  EXPECT_NE(chrome.find("{\"label\": \"[unsampled: 30 short processes of basename]\", \"ns\": "
                        "18000000}"),
            std::string::npos)
      << chrome.substr(0, 800);

  if (!testing::have_tool("protoc") || !testing::have_tool("gzip")) {
    GTEST_SKIP() << "protoc or gzip not installed: pprof not decoded";
  }
  testing::write_file(dir.path() / "p.pb.gz", render_pprof(r));
  const std::string proto_dir = CPROF_REPORT_TEST_DIR;
  const auto pprof = testing::run_shell("gzip -dc " + (dir.path() / "p.pb.gz").string() +
                                        " | protoc --decode=perftools.profiles.Profile -I " +
                                        proto_dir + " " + proto_dir + "/profile.proto 2>&1");
  ASSERT_EQ(pprof.status, 0) << pprof.out;
  // No samples, 18 ms, on a location of its own whose function is the group's name.
  for (const char* needle :
       {"string_table: \"[unsampled: 30 short processes of basename]\"",
        "string_table: \"unsampled\"", "value: 0\n  value: 18000000", "value: 0\n  value: 2000000",
        "string_table: \"CPU time recorded: 30 ms; samples cover 33.3% of it (10 ms);"}) {
    EXPECT_NE(pprof.out.find(needle), std::string::npos) << needle << "\n" << pprof.out;
  }
}

TEST(CpuAccounting, AnExecdImageOwnsOnlyWhatItsUsageGrewBy) {
  // A fork child of xargs ran 0.2 ms, then exec'd basename, whose usage says 0.8 ms: the
  // CPU clocks went on across the exec.
  TempDir dir;
  write_image(dir.path(), {.pid = 300,
                           .executable = "/usr/bin/xargs",
                           .command_line = {"xargs", "-n1", "basename"},
                           .cpu_ns = 200 * kUs,
                           .end_ns = kStart + 1 * kMs});
  write_image(dir.path(), {.pid = 300,
                           .executable = "/usr/bin/basename",
                           .command_line = {"basename", "/usr/lib/x"},
                           .start_ns = kStart + 2 * kMs,
                           .cpu_ns = 800 * kUs});
  // Another process with that pid, long after: its own.
  write_image(dir.path(), {.pid = 300,
                           .executable = "/usr/bin/basename",
                           .command_line = {"basename", "/usr/lib/y"},
                           .start_ns = kStart + 5'000 * kMs,
                           .cpu_ns = 900 * kUs});
  const auto r = report_of(dir.path());
  EXPECT_EQ(r.cpu.recorded_ns, 1'700 * kUs);  // 0.2 + (0.8 - 0.2) + 0.9
  ASSERT_EQ(r.cpu.unsampled_processes.size(), 2u);
  EXPECT_EQ(r.cpu.unsampled_processes[0].executable, "basename");
  EXPECT_EQ(r.cpu.unsampled_processes[0].cpu_time_ns, 600 * kUs + 900 * kUs);
  EXPECT_EQ(r.cpu.unsampled_processes[1].cpu_time_ns, 200 * kUs);
}

TEST(CpuAccounting, ThreadsWithoutASampleInASampledProcessAreNamed) {
  TempDir dir;
  {
    testing::ProcessWriter w(dir.path() / "app.host.7.cprof", 7);
    w.thread(7, "main");
    for (int i = 0; i < 50; ++i) w.sample(7, {0x1010});
    w.add(format::ThreadEndRecord{.tid = 7, .time_ns = kStart + 60 * kMs, .cpu_time_ns = 50 * kMs});
    for (int64_t t = 8; t < 28; ++t) {
      w.thread(t, "short");
      w.add(
          format::ThreadEndRecord{.tid = t, .time_ns = kStart + 60 * kMs, .cpu_time_ns = kMs / 2});
    }
  }
  const auto r = report_of(dir.path());
  ASSERT_EQ(r.cpu.unsampled_threads.size(), 1u);
  EXPECT_EQ(r.cpu.unsampled_threads[0].threads, 20u);
  EXPECT_EQ(r.cpu.unsampled_threads[0].cpu_time_ns, 10 * kMs);
  EXPECT_EQ(r.cpu.unsampled_ns, 10 * kMs);
  const auto text = render_text(r, {.by = RowKind::thread});
  EXPECT_NE(text.find("[unsampled: 20 threads of app[7]]"), std::string::npos) << text;
}

TEST(ProcessLabel, NamesTheCommandLineShortened) {
  ProcessProfile p;
  p.has_process_record = true;
  p.process.pid = 1234;
  p.process.executable = "/usr/lib/git-core/git";
  p.process.command_line = {"git", "gc", "--aggressive"};
  EXPECT_EQ(p.label(), "git gc --aggressive [1234]");
  p.process.rank = 3;
  EXPECT_EQ(p.label(), "git gc --aggressive [1234] rank 3");
  p.process.rank = -1;
  // Long: cut past 60 characters with an ellipsis, never the pid; a line break is a space.
  p.process.command_line = {"/usr/bin/python3", "-c", std::string(100, 'x') + "\nprint(1)"};
  p.process.executable = "/usr/bin/python3.11";
  const auto long_label = p.label();
  EXPECT_EQ(long_label, "python3.11 -c " + std::string(43, 'x') + "... [1234]");
  EXPECT_EQ(long_label.size(), 60u + 7);
  // Within a width: the command is cut further, the pid kept.
  EXPECT_EQ(p.label(25), "python3.11 -c x... [1234]");
  // Room for fewer than 4 characters of the arguments: the short form, never "java...".
  p.process.executable = "/usr/lib/jvm/bin/java";
  p.process.command_line = {"java", "-XX:+UnlockDiagnosticVMOptions", "JitWork"};
  EXPECT_EQ(p.label(19), "java -XX:... [1234]");
  EXPECT_EQ(p.label(18), "java[1234]");
  EXPECT_EQ(p.label(12), "java[1234]");
  // No arguments: as before.
  p.process.command_line = {"app"};
  p.process.executable = "/usr/bin/app";
  EXPECT_EQ(p.label(), "app[1234]");
}

// Many processes: the busiest first, and tables cut at the documented limit with what
// they left out.
void write_many(const std::filesystem::path& dir, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    write_image(dir, {.pid = 1000 + i,
                      .executable = "/usr/bin/a" + std::to_string(i % 7),
                      .command_line = {"a", std::to_string(i)},
                      .start_ns = kStart + static_cast<uint64_t>(i) * 10 * kMs,
                      .samples = i == n - 10 ? 900u : 1u,
                      .cpu_ns = i == n - 10 ? 900 * kMs : kMs});
  }
}

TEST(LongTables, HtmlProcessesByTimeCutAtTheLimitWithWhatIsLeft) {
  TempDir dir;
  write_many(dir.path(), 600);
  const auto r = report_of(dir.path());
  const auto html = render_html(r, {.top = 0});
  const auto table = html.substr(html.find("<table id=\"processes\""));
  const auto body = table.substr(0, table.find("</table>"));
  size_t rows = 0;
  for (size_t at = body.find("<tr><td>"); at != std::string::npos;
       at = body.find("<tr><td>", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 500u);
  // The busiest process is the first row.
  const auto first = body.find("<tr><td>");
  EXPECT_NE(body.find("a2 590 [1590]", first), std::string::npos);
  EXPECT_LT(body.find("a2 590 [1590]", first), body.find("</tr>", first));
  EXPECT_NE(body.find("<tr class=\"more\"><td class=\"name\" colspan=\"15\">… 100 more processes "
                      "(6.67% of the time)</td></tr>"),
            std::string::npos)
      << body.substr(body.size() - 400);
  EXPECT_NE(html.find("<p class=\"note\">top 500 of 600 by time</p>"), std::string::npos);
  const auto threads = html.substr(html.find("<table id=\"threads\""));
  EXPECT_NE(threads.find("… 100 more threads (6.67% of the time)"), std::string::npos);
}

TEST(LongTables, TextTablesSayWhatTheyLeftOut) {
  TempDir dir;
  write_many(dir.path(), 30);
  const auto r = report_of(dir.path());
  const auto text = render_text(r, {.by = RowKind::process});
  EXPECT_NE(text.find("Processes by time (top 20 of 30)"), std::string::npos) << text;
  EXPECT_NE(text.find("  ... 10 more processes (1.08% of the time)"), std::string::npos) << text;
  EXPECT_TRUE(line_with(text, "[1020]", "Processes by time").starts_with(" 96.88%")) << text;
}

}  // namespace
}  // namespace cprof::report
