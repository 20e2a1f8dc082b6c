// The sampling coverage check (report/profile/sampling_coverage.h): threads whose CPU-clock
// samples cover much less than their CPU time are flagged, and nothing else is (covered
// threads, short ones, threads that did not end, wall-clock samples, the main thread's
// time before the runtime started, switch-heavy processes); and the warning it gives in
// the text header, the JSON processes and the HTML notes, absent when nothing is flagged.
#include "report/profile/sampling_coverage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "report/render/render.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"

namespace cprof::report {
namespace {

using testing::FakeSymbols;
using testing::ProcessWriter;
using testing::TempDir;

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kPeriod = kMs;  // 1000 Hz

// One process sampled at 1000 Hz on the CPU clock; threads are added by the tests.
ProcessProfile process(const std::string& clock = "cpu") {
  ProcessProfile p;
  p.has_process_record = true;
  p.process.pid = 100;
  p.process.executable = "/usr/bin/app";
  p.process.engine = "perf_event";
  p.process.clock = clock;
  p.process.frequency_hz = 1000;
  p.process.period_ns = kPeriod;
  p.process.start_monotonic_ns = 1'000 * kMs;
  return p;
}

// An ended thread that ran `cpu_ns` on CPU and has CPU-clock samples worth `sampled_ns`.
ThreadInfo ended(int64_t tid, const std::string& name, uint64_t cpu_ns, uint64_t sampled_ns) {
  return ThreadInfo{.tid = tid,
                    .name = name,
                    .ended = true,
                    .cpu_time_ns = cpu_ns,
                    .samples = sampled_ns / kPeriod,
                    .weight_ns = sampled_ns,
                    .cpu_weight_ns = sampled_ns};
}

TEST(SamplingCoverage, FlagsAThreadWhoseSamplesMissItsCpuTime) {
  auto p = process();
  p.threads.push_back(ended(100, "main", 300 * kMs, 290 * kMs));
  p.threads.push_back(ended(101, "worker", 2'000 * kMs, 0));
  p.threads.push_back(ended(102, "half", 1'000 * kMs, 400 * kMs));
  const auto c = check_sampling_coverage(p);
  ASSERT_EQ(c.threads.size(), 2u);
  // Most unsampled time first.
  EXPECT_EQ(c.threads[0].thread, 1u);
  EXPECT_EQ(c.threads[0].cpu_time_ns, 2'000 * kMs);
  EXPECT_EQ(c.threads[0].sampled_ns, 0u);
  EXPECT_DOUBLE_EQ(c.threads[0].coverage(), 0.0);
  EXPECT_EQ(c.threads[1].thread, 2u);
  EXPECT_DOUBLE_EQ(c.threads[1].coverage(), 0.4);
  EXPECT_EQ(c.unsampled_cpu_ns, 2'600 * kMs);
  EXPECT_EQ(c.short_threads.threads, 0u);
  EXPECT_TRUE(c.flagged());
  EXPECT_EQ(c.flagged_threads(), 2u);
  EXPECT_EQ(c.flagged_cpu_ns(), 3'000 * kMs);
  EXPECT_DOUBLE_EQ(c.coverage(), 400.0 / 3000.0);
}

TEST(SamplingCoverage, CoveredThreadsAreNotFlagged) {
  auto p = process();
  // What real runs give: up to a period or a tick short, or a little over.
  p.threads.push_back(ended(100, "main", 160 * kMs, 140 * kMs));
  p.threads.push_back(ended(101, "a", 300 * kMs, 299 * kMs));
  p.threads.push_back(ended(102, "b", 300 * kMs, 301 * kMs));
  p.threads.push_back(ended(103, "c", 1'000 * kMs, 510 * kMs));  // just over half
  const auto c = check_sampling_coverage(p);
  EXPECT_FALSE(c.flagged());
  EXPECT_EQ(c.unsampled_cpu_ns, 0u);
  EXPECT_EQ(c.min_thread_cpu_ns, 50 * kMs);
}

TEST(SamplingCoverage, DroppedSamplesCountAsCovered) {
  auto p = process();
  auto t = ended(101, "w", 1'000 * kMs, 300 * kMs);
  t.dropped_samples = 300;  // 300 periods: 60% in all
  p.threads.push_back(t);
  EXPECT_FALSE(check_sampling_coverage(p).flagged());
  p.threads[0].dropped_samples = 100;  // 40%
  const auto c = check_sampling_coverage(p);
  ASSERT_EQ(c.threads.size(), 1u);
  EXPECT_EQ(c.threads[0].sampled_ns, 400 * kMs);
}

TEST(SamplingCoverage, ShortThreadsAreNotFlaggedAlone) {
  auto p = process();
  p.threads.push_back(ended(101, "short", 45 * kMs, 0));  // under 50 ms
  // Thread churn: many threads of a period or so each, mostly without a sample.
  for (int64_t tid = 200; tid < 3200; ++tid) {
    p.threads.push_back(ended(tid, "churn", kMs, tid % 20 == 0 ? kMs : 0));
  }
  const auto c = check_sampling_coverage(p);
  EXPECT_FALSE(c.flagged());
}

TEST(SamplingCoverage, TheThresholdGrowsWithThePeriod) {
  auto p = process();
  p.process.frequency_hz = 10;
  p.process.period_ns = 100 * kMs;  // 20 periods: 2 s
  p.threads.push_back(ended(101, "w", 1'500 * kMs, 0));
  auto c = check_sampling_coverage(p);
  EXPECT_EQ(c.min_thread_cpu_ns, 2'000 * kMs);
  EXPECT_TRUE(c.threads.empty());
  p.threads[0].cpu_time_ns = 2'500 * kMs;
  c = check_sampling_coverage(p);
  EXPECT_EQ(c.threads.size(), 1u);
}

TEST(SamplingCoverage, ManyShortUnsampledThreadsAreFlaggedAsAGroup) {
  auto p = process();
  // 40 threads of 45 ms each, none sampled: no thread alone passes the threshold, but
  // 1.8 s of CPU time with no sample at all is no accident.
  for (int64_t tid = 101; tid <= 140; ++tid) p.threads.push_back(ended(tid, "job", 45 * kMs, 0));
  const auto c = check_sampling_coverage(p);
  EXPECT_TRUE(c.threads.empty());
  EXPECT_EQ(c.short_threads.threads, 40u);
  EXPECT_EQ(c.short_threads.cpu_time_ns, 1'800 * kMs);
  EXPECT_EQ(c.short_threads.sampled_ns, 0u);
  EXPECT_EQ(c.unsampled_cpu_ns, 1'800 * kMs);
  EXPECT_EQ(c.flagged_threads(), 40u);
  // Sampled as usual (a period short each), the same threads are fine.
  for (auto& t : p.threads) t.cpu_weight_ns = 44 * kMs;
  EXPECT_FALSE(check_sampling_coverage(p).flagged());
}

TEST(SamplingCoverage, ThreadsThatDidNotEndAreNotChecked) {
  auto p = process();
  auto t = ended(101, "running", 5'000 * kMs, 0);
  t.ended = false;  // the file ends before its thread_end record: its CPU time is unknown
  p.threads.push_back(t);
  p.threads.push_back(ThreadInfo{.tid = 102, .name = "older file"});  // no CPU time at all
  EXPECT_FALSE(check_sampling_coverage(p).flagged());
}

TEST(SamplingCoverage, WallClockSamplesDoNotCoverCpuTime) {
  auto p = process("cpu+wall");
  auto wall_only = ended(101, "wall only", 2'000 * kMs, 0);
  wall_only.weight_ns = 5'000 * kMs;  // wall-clock samples: blocked time too
  wall_only.samples = 5'000;
  p.threads.push_back(wall_only);
  auto both = ended(102, "both", 2'000 * kMs, 1'990 * kMs);
  both.weight_ns += 3'000 * kMs;
  p.threads.push_back(both);
  const auto c = check_sampling_coverage(p);
  ASSERT_EQ(c.threads.size(), 1u);
  EXPECT_EQ(c.threads[0].thread, 0u);
  EXPECT_EQ(c.threads[0].sampled_ns, 0u);

  // Sampled on the wall clock alone, no CPU-clock samples are expected.
  p.process.clock = "wall";
  EXPECT_FALSE(check_sampling_coverage(p).flagged());
}

TEST(SamplingCoverage, GpuHookFilesAreNotChecked) {
  auto p = process();
  p.process.engine = "cupti";
  p.threads.push_back(ended(101, "w", 2'000 * kMs, 0));
  EXPECT_FALSE(check_sampling_coverage(p).flagged());
}

TEST(SamplingCoverage, TheMainThreadsTimeBeforeTheStartIsNotHeldAgainstIt) {
  // An image that exec replaced after 700 ms of work: the main thread's CPU clock holds it.
  auto p = process();
  p.threads.push_back(ended(100, "main", 841 * kMs, 148 * kMs));
  p.threads.push_back(ended(101, "worker", 300 * kMs, 298 * kMs));
  ASSERT_TRUE(check_sampling_coverage(p).flagged());  // without a metric record to say so
  p.metrics.push_back(format::MetricRecord{.time_ns = 1'400 * kMs, .cpu_user_ns = 900 * kMs});
  p.metrics.push_back(format::MetricRecord{.time_ns = 1'021 * kMs, .cpu_user_ns = 738 * kMs});
  EXPECT_FALSE(check_sampling_coverage(p).flagged());
  // Another thread gets no such allowance.
  p.threads[1].cpu_weight_ns = 0;
  const auto c = check_sampling_coverage(p);
  ASSERT_EQ(c.threads.size(), 1u);
  EXPECT_EQ(c.threads[0].thread, 1u);
}

TEST(SamplingCoverage, ContextSwitchesExcuseWhatTheTaskClockMisses) {
  // Two threads handing a turn to each other: 200k switches, 57% sampled.
  auto p = process();
  p.threads.push_back(ended(101, "ping", 1'800 * kMs, 1'030 * kMs));
  p.threads.push_back(ended(102, "pong", 1'800 * kMs, 700 * kMs));
  ASSERT_EQ(check_sampling_coverage(p).threads.size(), 1u);  // 39% without the switches
  p.metrics.push_back(format::MetricRecord{
      .time_ns = 5'000 * kMs, .voluntary_switches = 150'000, .involuntary_switches = 50'000});
  EXPECT_FALSE(check_sampling_coverage(p).flagged());
  // A few thousand switches do not hide a thread that was never sampled.
  p.metrics.back().voluntary_switches = 1'500;
  p.metrics.back().involuntary_switches = 300;
  p.threads[1].cpu_weight_ns = 0;
  EXPECT_EQ(check_sampling_coverage(p).threads.size(), 1u);
}

// Rendering: results files through the real loader and build_report.

constexpr uint64_t kStart = 1'000'000'000;  // the fixture's start_monotonic_ns

void thread_end(ProcessWriter& w, int64_t tid, uint64_t cpu_ns) {
  w.add(
      format::ThreadEndRecord{.tid = tid, .time_ns = kStart + 2'000 * kMs, .cpu_time_ns = cpu_ns});
}

// pid `pid`: "main" sampled for all of its 200 ms; "xz" workers (tids pid+1...) each ran
// 2 s on CPU with `worker_samples` 1 ms samples.
void write_process(const std::filesystem::path& dir, int64_t pid, int workers,
                   uint64_t worker_samples) {
  ProcessWriter w(dir / ("app.host." + std::to_string(pid) + ".cprof"), pid);
  w.thread(pid, "main");
  for (int i = 0; i < 200; ++i) w.sample(pid, {0x1010, 0x3011}, kMs);
  thread_end(w, pid, 200 * kMs);
  for (int k = 1; k <= workers; ++k) {
    w.thread(pid + k, "xz");
    for (uint64_t i = 0; i < worker_samples; ++i) w.sample(pid + k, {0x1010, 0x3011}, kMs);
    thread_end(w, pid + k, 2'000 * kMs);
  }
}

Report report_of(const std::filesystem::path& dir) {
  FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
  symbols.add(0x3000, 0x3100, {{.function = "main", .file = "/src/m.cpp", .line = 30}});
  return build_report(load_results(find_results_files(dir)), symbols, {.call_tree = true});
}

std::vector<std::string> warning_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.starts_with("warning: ") || (!out.empty() && l.starts_with("      ") &&
                                       out.back().find("blocked") == std::string::npos)) {
      out.push_back(l);
    }
  }
  return out;
}

TEST(SamplingCoverageRender, WallClockSamplesAreKeptApartWhenLoaded) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.100.cprof", 100);
    w.thread(101, "sleepy");
    for (int i = 0; i < 10; ++i) w.sample(101, {0x1010}, kMs);
    for (int i = 0; i < 500; ++i) {
      w.add(format::SampleRecord{.tid = 101,
                                 .time_ns = kStart + 10 * kMs,
                                 .weight_ns = 10 * kMs,
                                 .clock = format::SampleClock::wall,
                                 .frames = {testing::kLoadBias + 0x1010}});
    }
    thread_end(w, 101, 1'000 * kMs);
  }
  const auto r = report_of(dir.path());
  ASSERT_EQ(r.processes.size(), 1u);
  const auto& t = r.processes[0].threads.at(0);
  // The profile is of the CPU clock (the process record says "cpu"): the 5 s of
  // wall-clock samples are set aside, never added to it.
  EXPECT_EQ(t.weight_ns, 10 * kMs);
  EXPECT_EQ(r.processes[0].other_clock_weight_ns, 5'000 * kMs);
  EXPECT_EQ(t.cpu_weight_ns, 10 * kMs);
  // 5 s of wall-clock samples do not make up for 1 s of CPU time without CPU samples.
  ASSERT_EQ(r.coverage.size(), 1u);
  ASSERT_EQ(r.coverage[0].threads.size(), 1u);
  EXPECT_EQ(r.coverage[0].threads[0].sampled_ns, 10 * kMs);
}

TEST(SamplingCoverageRender, TextSaysWhichThreadsRanUnsampled) {
  TempDir dir;
  write_process(dir.path(), 100, 2, 0);
  const auto r = report_of(dir.path());
  ASSERT_EQ(r.coverage.size(), 1u);
  const auto text = render_text(r, {});
  const auto lines = warning_lines(text);
  ASSERT_EQ(lines.size(), 2u) << text;
  EXPECT_EQ(lines[0],
            "warning: app[100]: samples miss 4 s of the 4 s of CPU time of 2 threads; 101 xz: 0% "
            "of 2 s sampled;");
  EXPECT_EQ(lines[1], "      102 xz: 0% of 2 s sampled; was the sampling signal blocked in them?");
  for (const auto& l : lines) EXPECT_LE(l.size(), 100u) << l;
  // Right under the process's own line, before the profile.
  EXPECT_LT(text.find("app[100]"), text.find("warning: app[100]"));
  EXPECT_LT(text.find("warning: app[100]"), text.find("Functions by self time"));
  // A wide terminal: one line.
  const auto wide = warning_lines(render_text(r, {.width = 200}));
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_TRUE(
      wide[0].ends_with("102 xz: 0% of 2 s sampled; was the sampling signal blocked in them?"))
      << wide[0];
}

TEST(SamplingCoverageRender, TextNamesThreeThreadsThenCounts) {
  TempDir dir;
  write_process(dir.path(), 100, 5, 500);  // 25% each
  const auto text = render_text(report_of(dir.path()), {.width = 300});
  const auto lines = warning_lines(text);
  ASSERT_EQ(lines.size(), 1u) << text;
  EXPECT_EQ(lines[0],
            "warning: app[100]: samples miss 7.5 s of the 10 s of CPU time of 5 threads; "
            "101 xz: 25% of 2 s sampled; 102 xz: 25% of 2 s sampled; 103 xz: 25% of 2 s sampled; "
            "and 2 more threads; was the sampling signal blocked in them?");
}

TEST(SamplingCoverageRender, TextCountsShortThreadsTogether) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.100.cprof", 100);
    for (int64_t tid = 101; tid <= 140; ++tid) {
      w.thread(tid, "job");
      thread_end(w, tid, 45 * kMs);
    }
    w.thread(200, "big");
    thread_end(w, 200, 1'000 * kMs);
  }
  const auto lines = warning_lines(render_text(report_of(dir.path()), {.width = 300}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "warning: app[100]: samples miss 2.8 s of the 2.8 s of CPU time of 41 threads; "
            "200 big: 0% of 1 s sampled; 40 threads of under 50 ms each: 0% of 1.8 s sampled; "
            "was the sampling signal blocked in them?");
}

TEST(SamplingCoverageRender, TextSaysEachProcessUpToEightThenCounts) {
  TempDir dir;
  for (int64_t i = 0; i < 10; ++i) write_process(dir.path(), 1000 + 10 * i, 1, 0);
  write_process(dir.path(), 2000, 1, 2'000);  // covered
  const auto text = render_text(report_of(dir.path()), {.width = 200});
  const auto lines = warning_lines(text);
  ASSERT_EQ(lines.size(), 9u) << text;
  EXPECT_EQ(lines[8], "warning: ... and 2 more processes with threads that ran unsampled");
  EXPECT_EQ(text.find("app[2000]: samples miss"), std::string::npos);
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(SamplingCoverageRender, JsonListsTheThreadsAlwaysWithTheFields) {
  TempDir dir;
  write_process(dir.path(), 100, 1, 0);
  write_process(dir.path(), 200, 1, 2'000);  // covered
  const auto json = render_json(report_of(dir.path()), {.top = 0});
  const auto flagged = json.find("\"pid\": 100,");
  const auto covered = json.find("\"pid\": 200,");
  ASSERT_NE(flagged, std::string::npos);
  ASSERT_NE(covered, std::string::npos);
  const size_t first = std::min(flagged, covered), second = std::max(flagged, covered);
  const auto in_process = [&](size_t pid_at, const std::string& needle) {
    const auto at = json.find(needle, pid_at);
    const auto end = pid_at == first ? second : json.find("\"warnings\":");
    return at != std::string::npos && at < end;
  };
  EXPECT_TRUE(in_process(flagged, "\"unsampled_cpu_ns\": 2000000000,")) << json;
  EXPECT_TRUE(
      in_process(flagged,
                 "\"unsampled_threads\": [\n        {\"tid\": 101, \"name\": \"xz\", "
                 "\"cpu_time_ns\": 2000000000, \"sampled_ns\": 0, \"coverage\": 0}\n      ],"))
      << json;
  EXPECT_TRUE(in_process(covered, "\"unsampled_cpu_ns\": 0,")) << json;
  EXPECT_TRUE(in_process(covered, "\"unsampled_threads\": [],")) << json;
  // Both processes have every field, the short threads' group with zeros.
  EXPECT_EQ(count(json, "\"unsampled_cpu_ns\": "), 2u);
  EXPECT_EQ(count(json, "\"unsampled_threads\": "), 2u);
  EXPECT_EQ(count(json,
                  "\"unsampled_short_threads\": {\"threads\": 0, \"cpu_time_ns\": 0, "
                  "\"sampled_ns\": 0}"),
            2u);
}

TEST(SamplingCoverageRender, HtmlNotesTheProcess) {
  TempDir dir;
  write_process(dir.path(), 100, 1, 0);
  const auto html = render_html(report_of(dir.path()), {});
  const auto note =
      html.find("<li class=\"unsampled\">warning: app[100]: samples miss 2 s of the 2 s");
  ASSERT_NE(note, std::string::npos) << html;
  EXPECT_LT(html.find("<table id=\"processes\">"), note);
  EXPECT_LT(note, html.find("<h2>Functions by self time"));
  EXPECT_NE(html.find("101 xz: 0% of 2 s sampled; was the sampling signal blocked in them?</li>"),
            std::string::npos);
}

TEST(SamplingCoverageRender, NothingIsSaidWhenSamplesCoverTheThreads) {
  TempDir dir;
  write_process(dir.path(), 100, 2, 1'990);
  const auto r = report_of(dir.path());
  ASSERT_EQ(r.coverage.size(), 1u);
  EXPECT_FALSE(r.coverage[0].flagged());
  const auto text = render_text(r, {});
  EXPECT_EQ(text.find("warning:"), std::string::npos) << text;
  // (The CPU time line may say what no sample covers: the start, the last periods.)
  EXPECT_EQ(text.find("samples miss"), std::string::npos) << text;
  const auto html = render_html(r, {});
  EXPECT_EQ(html.find("<li class=\"unsampled\">"), std::string::npos);
  EXPECT_EQ(html.find("sampling signal"), std::string::npos);
  const auto json = render_json(r, {});
  EXPECT_NE(json.find("\"unsampled_threads\": []"), std::string::npos) << json;
  EXPECT_NE(json.find("\"unsampled_cpu_ns\": 0"), std::string::npos) << json;
}

}  // namespace
}  // namespace cprof::report
