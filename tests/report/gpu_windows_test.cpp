// GPU files traced in windows (`--gpu-duty`, gpu_trace_window records): busy time and idle
// gaps measured inside the windows on hand-made intervals, the windows a lost record
// leaves to be inferred, and what every format says about them (and that a file without
// windows reads as before).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/load/gpu_load.h"
#include "report/profile/gpu_timeline.h"
#include "report/profile/gpu_tracing.h"
#include "report/render/render.h"
#include "tests/report/gpu_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

using testing::gpu_report;
using testing::GpuFileWriter;
using testing::have_tool;
using testing::kT0;
using testing::kUs;
using testing::python_on_json;
using testing::run_shell;
using testing::TempDir;
using testing::windowed_gpu_report;
using testing::write_file;

constexpr uint64_t kMs = 1'000'000;

std::array<uint64_t, kIdleGapBuckets> buckets(
    std::initializer_list<std::pair<size_t, uint64_t>> set) {
  std::array<uint64_t, kIdleGapBuckets> a{};
  for (const auto& [b, n] : set) a[b] = n;
  return a;
}

// --- summarize_busy_in_windows ------------------------------------------------------

TEST(GpuBusyInWindows, KernelsStraddlingWindowEdgesCountTheirPartInside) {
  // Window [50, 200] us cuts [0, 100] and [150, 250]; window [300, 400] cuts [380, 420].
  const auto s =
      summarize_busy_in_windows({{150 * kUs, 250 * kUs}, {0, 100 * kUs}, {380 * kUs, 420 * kUs}},
                                {{300 * kUs, 400 * kUs}, {50 * kUs, 200 * kUs}});
  EXPECT_TRUE(s.in_windows);
  EXPECT_EQ(s.windows, 2u);
  EXPECT_EQ(s.busy_ns, (50 + 50 + 20) * kUs);
  EXPECT_EQ(s.observed_ns, (150 + 100) * kUs);
  EXPECT_EQ(s.span_ns(), 250 * kUs);
  EXPECT_EQ(s.span_start_ns, 50 * kUs);
  EXPECT_EQ(s.span_end_ns, 400 * kUs);
  EXPECT_DOUBLE_EQ(s.busy_fraction(), 120.0 / 250.0);
  // The 50 us between the first two counts; the 80 us from the second window's start to
  // its kernel is cut by the window's edge.
  EXPECT_EQ(s.gaps, 1u);
  EXPECT_EQ(s.gap_counts, buckets({{3, 1}}));
  EXPECT_EQ(s.gap_ns[3], 50 * kUs);
}

TEST(GpuBusyInWindows, KernelsOutsideEveryWindowCountNothing) {
  const auto s = summarize_busy_in_windows({{500 * kUs, 600 * kUs}, {150 * kUs, 160 * kUs}},
                                           {{0, 100 * kUs}, {200 * kUs, 300 * kUs}});
  EXPECT_EQ(s.busy_ns, 0u);
  EXPECT_EQ(s.observed_ns, 200 * kUs);
  EXPECT_EQ(s.gaps, 0u);
  EXPECT_EQ(s.busy_fraction(), 0.0);
}

TEST(GpuBusyInWindows, OneKernelAcrossSeveralWindowsFillsEach) {
  const auto s = summarize_busy_in_windows(
      {{0, 1000 * kUs}}, {{100 * kUs, 200 * kUs}, {300 * kUs, 400 * kUs}, {900 * kUs, 950 * kUs}});
  EXPECT_EQ(s.windows, 3u);
  EXPECT_EQ(s.busy_ns, 250 * kUs);
  EXPECT_EQ(s.observed_ns, 250 * kUs);
  EXPECT_DOUBLE_EQ(s.busy_fraction(), 1.0);
  EXPECT_EQ(s.gaps, 0u);
}

TEST(GpuBusyInWindows, EmptyWindowsAreObservedIdleTime) {
  // The second window saw no kernel: its 100 us are idle, not unknown.
  const auto s = summarize_busy_in_windows({{10 * kUs, 20 * kUs}, {30 * kUs, 40 * kUs}},
                                           {{0, 50 * kUs}, {100 * kUs, 200 * kUs}});
  EXPECT_EQ(s.busy_ns, 20 * kUs);
  EXPECT_EQ(s.observed_ns, 150 * kUs);
  EXPECT_EQ(s.gaps, 1u);
  EXPECT_EQ(s.gap_counts, buckets({{1, 1}}));  // 10 us
  // No windows at all: nothing observed.
  const auto none = summarize_busy_in_windows({{10, 20}}, {});
  EXPECT_TRUE(none.in_windows);
  EXPECT_EQ(none.windows, 0u);
  EXPECT_EQ(none.busy_ns, 0u);
  EXPECT_EQ(none.observed_ns, 0u);
  EXPECT_EQ(none.busy_fraction(), 0.0);
}

TEST(GpuBusyInWindows, GapsAtWindowEdgesAreLeftOut) {
  const auto s = summarize_busy_in_windows({{20 * kUs, 30 * kUs}}, {{0, 100 * kUs}});
  EXPECT_EQ(s.busy_ns, 10 * kUs);
  EXPECT_EQ(s.gaps, 0u);
  // Kernels in two windows: the time between them is not a gap (not all of it was seen).
  const auto two = summarize_busy_in_windows({{20 * kUs, 30 * kUs}, {120 * kUs, 130 * kUs}},
                                             {{0, 50 * kUs}, {100 * kUs, 150 * kUs}});
  EXPECT_EQ(two.gaps, 0u);
  EXPECT_EQ(two.busy_ns, 20 * kUs);
}

TEST(GpuBusyInWindows, TouchingAndOverlappingWindowsAreOne) {
  const auto s =
      summarize_busy_in_windows({{40 * kUs, 45 * kUs}, {60 * kUs, 65 * kUs}},
                                {{50 * kUs, 100 * kUs}, {0, 50 * kUs}, {80 * kUs, 120 * kUs}});
  EXPECT_EQ(s.windows, 1u);
  EXPECT_EQ(s.observed_ns, 120 * kUs);
  EXPECT_EQ(s.gaps, 1u);  // 15 us inside the one window
  EXPECT_EQ(s.gap_counts, buckets({{1, 1}}));
}

TEST(GpuBusyInWindows, OneWindowOverEverythingMatchesSummarizeBusy) {
  const std::vector<TimeInterval> k{{1300 * kUs, 1400 * kUs}, {0, 100 * kUs},
                                    {150 * kUs, 250 * kUs},   {105 * kUs, 200 * kUs},
                                    {160 * kUs, 170 * kUs},   {250 * kUs, 260 * kUs},
                                    {275 * kUs, 300 * kUs},   {201400 * kUs, 201500 * kUs}};
  const auto whole = summarize_busy(k);
  const auto in = summarize_busy_in_windows(k, {{0, 201500 * kUs}});
  EXPECT_FALSE(whole.in_windows);
  EXPECT_EQ(in.busy_ns, whole.busy_ns);
  EXPECT_EQ(in.observed_ns, whole.observed_ns);
  EXPECT_EQ(in.gaps, whole.gaps);
  EXPECT_EQ(in.gap_counts, whole.gap_counts);
  EXPECT_EQ(in.gap_ns, whole.gap_ns);
}

TEST(GpuBusyInWindows, IntersectionOfTwoProcessesWindows) {
  const auto both = intersect_intervals({{0, 10}, {20, 30}, {40, 50}}, {{5, 25}, {30, 45}});
  ASSERT_EQ(both.size(), 3u);
  EXPECT_EQ(both[0].start_ns, 5u);
  EXPECT_EQ(both[0].end_ns, 10u);
  EXPECT_EQ(both[1].start_ns, 20u);
  EXPECT_EQ(both[1].end_ns, 25u);
  EXPECT_EQ(both[2].start_ns, 40u);
  EXPECT_EQ(both[2].end_ns, 45u);  // [30, 30] touches only: not kept
}

// --- windows of a process, the lost one inferred ---------------------------------------

GpuKernel kernel_at(uint64_t submit_ns, uint64_t start_ns, uint64_t end_ns) {
  return {.submit_ns = submit_ns, .start_ns = start_ns, .end_ns = end_ns};
}

GpuActivity windowed_activity() {
  GpuActivity g;
  g.trace_windows = {
      {.start_ns = 0, .end_ns = 10 * kMs, .duty = 0.1, .period_ns = 100 * kMs},
      {.start_ns = 120 * kMs, .end_ns = 130 * kMs, .duty = 0.1, .period_ns = 100 * kMs}};
  return g;
}

TEST(GpuTracing, NoWindowRecordsTracedThroughout) {
  GpuActivity g;
  g.kernels.push_back(kernel_at(1, 2, 3));
  const auto t = gpu_process_tracing(g, 100);
  EXPECT_FALSE(t.windowed());
  EXPECT_EQ(t.traced_ns, 0u);
  EXPECT_EQ(t.outside, 0u);
}

TEST(GpuTracing, RecordedWindowsAndTheRunTheyCover) {
  auto g = windowed_activity();
  g.kernels.push_back(kernel_at(1 * kMs, 2 * kMs, 3 * kMs));
  g.kernels.push_back(kernel_at(125 * kMs, 126 * kMs, 140 * kMs));  // runs past its window
  const auto t = gpu_process_tracing(g, 190 * kMs);
  ASSERT_TRUE(t.windowed());
  EXPECT_EQ(t.recorded_windows, 2u);
  EXPECT_EQ(t.inferred_windows, 0u);
  EXPECT_EQ(t.traced_ns, 20 * kMs);
  EXPECT_EQ(t.span_start_ns, 0u);
  EXPECT_EQ(t.span_ns(), 190 * kMs);  // to the process's last record
  EXPECT_EQ(t.outside, 0u);
  EXPECT_DOUBLE_EQ(t.duty_min, 0.1);
  EXPECT_EQ(t.period_max_ns, 100 * kMs);
}

TEST(GpuTracing, LaunchesAfterTheLastWindowInferTheLostOnes) {
  auto g = windowed_activity();
  g.kernels.push_back(kernel_at(1 * kMs, 2 * kMs, 3 * kMs));
  // The switch's lag: launched 0.5 ms after the last window's end. Outside, no window.
  g.kernels.push_back(kernel_at(130 * kMs + kMs / 2, 131 * kMs, 132 * kMs));
  // A window whose record was lost: launches from 250 ms, one running until 300 ms; the
  // window is cut at its planned 10 ms.
  g.kernels.push_back(kernel_at(250 * kMs, 251 * kMs, 255 * kMs));
  g.kernels.push_back(kernel_at(258 * kMs, 259 * kMs, 300 * kMs));
  // Another, from 400 ms: an untimed kernel and a copy until 403 ms.
  g.kernels.push_back(kernel_at(400 * kMs, 0, 0));
  g.copies.push_back({.submit_ns = 401 * kMs, .start_ns = 402 * kMs, .end_ns = 403 * kMs});
  const auto t = gpu_process_tracing(g, 350 * kMs);
  ASSERT_EQ(t.windows.size(), 4u);
  EXPECT_EQ(t.recorded_windows, 2u);
  EXPECT_EQ(t.inferred_windows, 2u);
  EXPECT_EQ(t.windows[2].start_ns, 250 * kMs);
  EXPECT_EQ(t.windows[2].end_ns, 260 * kMs);
  EXPECT_EQ(t.windows[3].start_ns, 400 * kMs);
  EXPECT_EQ(t.windows[3].end_ns, 403 * kMs);
  EXPECT_EQ(t.traced_ns, (10 + 10 + 10 + 3) * kMs);
  EXPECT_EQ(t.span_end_ns, 403 * kMs);  // later than the last record
  EXPECT_EQ(t.outside, 1u);             // the straggler
}

TEST(GpuTracing, LaunchesBetweenWindowsAreOutsideNotInferred) {
  auto g = windowed_activity();
  g.kernels.push_back(kernel_at(50 * kMs, 51 * kMs, 60 * kMs));
  const auto t = gpu_process_tracing(g, 200 * kMs);
  EXPECT_EQ(t.inferred_windows, 0u);
  EXPECT_EQ(t.outside, 1u);
  EXPECT_EQ(t.traced_ns, 20 * kMs);
}

TEST(GpuTracing, AppendCarriesTheWindows) {
  GpuActivity into = windowed_activity();
  GpuActivity from;
  from.trace_windows = {
      {.start_ns = 200 * kMs, .end_ns = 205 * kMs, .duty = 0.05, .period_ns = 50 * kMs}};
  append_gpu_activity(into, std::move(from));
  ASSERT_EQ(into.trace_windows.size(), 3u);
  EXPECT_EQ(into.trace_windows[2].start_ns, 200 * kMs);
  EXPECT_DOUBLE_EQ(into.trace_windows[2].duty, 0.05);
  const auto t = gpu_process_tracing(into, 0);
  EXPECT_DOUBLE_EQ(t.duty_min, 0.05);
  EXPECT_DOUBLE_EQ(t.duty_max, 0.1);
  EXPECT_EQ(t.period_min_ns, 50 * kMs);
}

// --- the profile of a windowed file ------------------------------------------------------

TEST(GpuWindowedProfile, BusyInsideWindowsCountsNotScaled) {
  TempDir dir;
  const auto r = windowed_gpu_report(dir.path());
  ASSERT_EQ(r.processes.size(), 1u) << "the windowed .gpu.cprof is folded into pid 400";
  EXPECT_EQ(r.processes[0].gpu.trace_windows.size(), 3u);
  const auto& g = r.gpu;
  // Counts and times are the windows' own.
  EXPECT_EQ(g.kernels, 4u);
  EXPECT_EQ(g.kernel_ns, (2000 + 500 + 3000 + 20) * kUs);
  EXPECT_EQ(g.copies, 1u);
  ASSERT_EQ(g.kernel_rows.size(), 2u);
  EXPECT_EQ(g.kernel_rows[0].name, "scale");
  EXPECT_EQ(g.kernel_rows[0].calls, 2u);
  EXPECT_EQ(g.kernel_rows[0].total_ns, 3020 * kUs);

  const auto& t = g.tracing;
  EXPECT_TRUE(t.windowed());
  EXPECT_EQ(t.processes, 1u);
  EXPECT_EQ(t.windowed_processes, 1u);
  EXPECT_EQ(t.windows, 3u);
  EXPECT_EQ(t.inferred_windows, 0u);
  EXPECT_EQ(t.outside, 0u);
  EXPECT_EQ(t.traced_ns, 30'000 * kUs);
  EXPECT_EQ(t.span_ns, 300'000 * kUs);
  EXPECT_DOUBLE_EQ(t.traced_fraction(), 0.1);
  EXPECT_DOUBLE_EQ(t.scale(), 10.0);
  EXPECT_FALSE(t.mixed());

  const auto dev = std::find_if(g.devices.begin(), g.devices.end(),
                                [](const GpuDeviceRow& d) { return d.name == "gfx90a"; });
  ASSERT_NE(dev, g.devices.end());
  EXPECT_TRUE(dev->busy.in_windows);
  EXPECT_EQ(dev->busy.windows, 3u);
  EXPECT_EQ(dev->busy.busy_ns, 3520 * kUs);
  EXPECT_EQ(dev->busy.span_ns(), 30'000 * kUs);
  EXPECT_EQ(dev->busy.span_start_ns, kT0);
  EXPECT_EQ(dev->busy.gap_counts, buckets({{4, 1}, {5, 1}}));
}

TEST(GpuWindowedProfile, ProcessesSharingADeviceAreMeasuredWhereAllWereTraced) {
  TempDir dir;
  {
    GpuFileWriter a(dir.path() / "app.testhost.500.gpu.cprof", 500);
    a.device(1, "gfx90a", format::GpuDeviceKind::gpu);
    a.kernel("k", 1000, 8000, 1, {}, false);
    a.window(0, 10'000);
  }
  {
    GpuFileWriter b(dir.path() / "app.testhost.501.gpu.cprof", 501);
    b.device(1, "gfx90a", format::GpuDeviceKind::gpu);
    b.kernel("k", 9000, 12000, 1, {}, false);
    b.window(5000, 15'000);
  }
  {
    // Traced throughout, on another host: measured over its span as before.
    GpuFileWriter c(dir.path() / "app.otherhost.502.gpu.cprof", 502);
    c.device(1, "gfx90a", format::GpuDeviceKind::gpu);
    c.kernel("k", 0, 100, 1, {}, false);
    c.kernel("k", 200, 300, 1, {}, false);
  }
  testing::FakeSymbols symbols;
  // The writer's process records all name testhost: give the third its own host.
  auto loaded = load_results(find_results_files(dir.path()));
  for (auto& p : loaded.processes) {
    if (p.process.pid == 502) p.process.hostname = "otherhost";
  }
  const auto r = build_report(std::move(loaded), symbols);
  ASSERT_EQ(r.gpu.devices.size(), 2u);
  const bool first_shared = r.gpu.devices[0].hostname == "testhost";
  const auto& shared = r.gpu.devices[first_shared ? 0 : 1];
  EXPECT_EQ(shared.kernels, 2u);
  // Both were traced in [5000, 10000] us: 3000 us of the first, 1000 of the second, a
  // 1000 us gap between.
  EXPECT_TRUE(shared.busy.in_windows);
  EXPECT_EQ(shared.busy.span_ns(), 5000 * kUs);
  EXPECT_EQ(shared.busy.busy_ns, 4000 * kUs);
  EXPECT_EQ(shared.busy.gap_counts, buckets({{5, 1}}));
  const auto& other = r.gpu.devices[first_shared ? 1 : 0];
  EXPECT_EQ(other.hostname, "otherhost");
  EXPECT_FALSE(other.busy.in_windows);
  EXPECT_EQ(other.busy.span_ns(), 300 * kUs);
  EXPECT_EQ(other.busy.busy_ns, 200 * kUs);
  EXPECT_EQ(r.gpu.tracing.windowed_processes, 2u);
  EXPECT_EQ(r.gpu.tracing.processes, 3u);
  // The text names the windowed processes and marks the device measured in windows.
  const auto text = render_text(r, {});
  EXPECT_NE(text.find("GPU activity of 2 of 3 processes traced in windows: 10% of each 100 ms"),
            std::string::npos)
      << text;
  // Each ran only while traced here (its last record inside its window).
  EXPECT_NE(text.find("(traced 20 ms of 20 ms,"), std::string::npos) << text;
  EXPECT_NE(text.find("(x1.0 estimates the whole run of those processes)"), std::string::npos)
      << text;
  EXPECT_NE(text.find(" *: inside the trace windows, span = their summed length)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  * gfx90a on testhost\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  gfx90a on otherhost\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Idle gaps between kernels, by length (count; *: inside the trace windows"),
            std::string::npos)
      << text;
}

// --- every format -------------------------------------------------------------------------

TEST(GpuWindowedFormats, TextSaysWhatWasTraced) {
  TempDir dir;
  const auto text = render_text(windowed_gpu_report(dir.path()), {});
  const auto gpu = text.find(
      "GPU: 4 kernels (4 timed, 5.52 ms of kernel time), 1 copy (1.0 MB) "
      "on 2 devices; recorded by hsa\n");
  ASSERT_NE(gpu, std::string::npos) << text;
  // The note follows the summary line, before the tables, wrapped at 100 columns.
  EXPECT_NE(text.find("GPU activity traced in windows: 10% of each 100 ms (traced 30 ms of 300 ms, "
                      "10.0%).\nCalls and times below are those of the windows (x10.0 estimates "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("are measured inside them.\n"), std::string::npos) << text;
  EXPECT_LT(gpu, text.find("GPU activity traced in windows"));
  EXPECT_LT(text.find("GPU activity traced in windows"), text.find("GPU kernels by total time"));
  EXPECT_NE(text.find("GPU devices (busy = union of kernel times inside the trace windows, span = "
                      "their summed length)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" 11.73%   3.52 ms     30 ms          4"), std::string::npos) << text;
  EXPECT_NE(text.find("Idle gaps inside the trace windows"), std::string::npos) << text;
  EXPECT_EQ(text.find("launched outside every window"), std::string::npos) << text;
  EXPECT_EQ(text.find("had no record"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) EXPECT_LE(l.size(), 100u) << l;
}

TEST(GpuWindowedFormats, JsonTracingObject) {
  TempDir dir;
  const auto file = dir.path() / "report.json";
  write_file(file, render_json(windowed_gpu_report(dir.path()), {.top = 0}));
  if (!have_tool("python3")) GTEST_SKIP() << "python3 not installed: JSON not parsed";
  EXPECT_EQ(python_on_json(file, R"py(
t = d["gpu"]["tracing"]
print(t["windowed"], t["duty"], t["duty_max"], t["period_ns"], t["mixed"], t["windows"],
      t["inferred_windows"], t["outside_windows"], t["traced_ns"], t["span_ns"],
      t["traced_fraction"], t["scale"], t["processes"], t["windowed_processes"])
dev = [x for x in d["gpu"]["devices"] if x["name"] == "gfx90a"][0]
print(dev["in_windows"], dev["windows"], dev["busy_ns"], dev["span_ns"], dev["idle_gaps"]["counts"])
print(d["gpu"]["summary"]["kernels"], d["gpu"]["kernels"][0]["calls"])
)py"),
            "True 0.1 0.1 100000000 False 3 0 0 30000000 300000000 0.1 10 1 1\n"
            "True 3 3520000 30000000 [0, 0, 0, 0, 1, 1, 0, 0]\n"
            "4 2\n");
}

TEST(GpuWindowedFormats, HtmlNoteNearTheTables) {
  TempDir dir;
  const auto html = render_html(windowed_gpu_report(dir.path()), {});
  const auto note = html.find(
      "<p class=\"note\" id=\"gpu-tracing\"><strong>GPU activity traced in "
      "windows: 10% of each 100 ms (traced 30 ms of 300 ms, 10.0%).");
  ASSERT_NE(note, std::string::npos) << html;
  EXPECT_LT(html.find("<section id=\"gpu\">"), note);
  EXPECT_LT(note, html.find("id=\"gpu-kernels\""));
  EXPECT_NE(html.find("busy: the union of kernel times inside the trace windows"),
            std::string::npos);
}

TEST(GpuWindowedFormats, SqliteTraceWindowsTable) {
  TempDir dir;
  const auto db = dir.path() / "profile.db";
  ASSERT_EQ(write_sqlite(windowed_gpu_report(dir.path()), db.string()), "");
  if (!have_tool("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: database not queried";
  const auto q = [&](const std::string& sql) {
    return run_shell("sqlite3 " + db.string() + " \"" + sql + "\" 2>&1").out;
  };
  EXPECT_EQ(q("SELECT process_id, start_ns - 2000000000, duration_ns, duty, period_ns, inferred "
              "FROM gpu_trace_windows ORDER BY start_ns"),
            "0|0|10000000|0.1|100000000|0\n0|130000000|10000000|0.1|100000000|0\n"
            "0|250000000|10000000|0.1|100000000|0\n");
  EXPECT_EQ(
      q("SELECT name, busy_ns, span_ns, in_windows, windows FROM gpu_devices WHERE kernels > 0"),
      "gfx90a|3520000|30000000|1|3\n");
}

TEST(GpuWindowedFormats, ChromeDrawsTheWindows) {
  TempDir dir;
  const auto file = dir.path() / "trace.json";
  write_file(file, render_chrome(windowed_gpu_report(dir.path())));
  if (!have_tool("python3")) GTEST_SKIP() << "python3 not installed: JSON not parsed";
  // One track of the "GPU tracing" process per windowed process, a slice per window, on
  // the kernels' clock: the first kernel starts 1 ms into the first window.
  EXPECT_EQ(python_on_json(file, R"py(
ev = d["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
pid = [p for p, n in procs.items() if n == "GPU tracing"]
print(len(pid))
tracks = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == pid[0]]
print(tracks)
w = sorted((e["ts"], e["dur"], e["name"], e["args"]["inferred"]) for e in ev if e.get("cat") == "gpu.trace_window")
print([(round(ts - w[0][0]), round(dur), name, inf) for ts, dur, name, inf in w])
k = [e for e in ev if e.get("cat") == "gpu.kernel"]
print(round(min(e["ts"] for e in k) - w[0][0]))
)py"),
            "1\n['traced windows of app[400]']\n"
            "[(0, 10000, 'traced', False), (130000, 10000, 'traced', False), (250000, 10000, "
            "'traced', False)]\n"
            "1000\n");
}

TEST(GpuWindowedFormats, LostWindowSaidInEveryFormat) {
  TempDir dir;
  testing::write_windowed_gpu_results(dir.path());
  {
    // The process died inside a window 400 ms after kT0: its kernels, no window record.
    GpuFileWriter g(dir.path() / "app.testhost.400.gpu.1.cprof", 400);
    g.device(1, "gfx90a", format::GpuDeviceKind::gpu);
    g.kernel("scale", 400'000, 402'000, 1, {}, false);
  }
  testing::FakeSymbols symbols;
  const auto r = build_report(load_results(find_results_files(dir.path())), symbols);
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.gpu.tracing.inferred_windows, 1u);
  EXPECT_EQ(r.gpu.tracing.traced_ns, (30'000 + 2010) * kUs);
  const auto text = render_text(r, {});
  EXPECT_NE(text.find("(traced 32 ms of 402 ms, 8.0%).\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n1 window had no record (a process ended inside it): taken from the "
                      "launches after the last"),
            std::string::npos)
      << text;
  const auto db = dir.path() / "profile.db";
  ASSERT_EQ(write_sqlite(r, db.string()), "");
  if (!have_tool("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: database not queried";
  EXPECT_EQ(run_shell("sqlite3 " + db.string() +
                      " \"SELECT start_ns - 2000000000, duration_ns, inferred FROM "
                      "gpu_trace_windows WHERE inferred = 1\"")
                .out,
            "399990000|2010000|1\n");
  const auto trace = render_chrome(r);
  EXPECT_NE(trace.find("traced (window inferred: its record was lost)"), std::string::npos);
}

TEST(GpuWindowedFormats, WithoutWindowsNothingChanges) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  EXPECT_FALSE(r.gpu.tracing.windowed());
  EXPECT_EQ(r.gpu.tracing.processes, 1u);
  for (const auto& d : r.gpu.devices) EXPECT_FALSE(d.busy.in_windows) << d.name;
  const auto text = render_text(r, {});
  EXPECT_EQ(text.find("window"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU devices (busy = union of kernel times over the span, first kernel start "
                      "to last end)"),
            std::string::npos);
  EXPECT_NE(text.find("Idle gaps between kernels, by length (count)"), std::string::npos);
  const auto html = render_html(r, {});
  EXPECT_EQ(html.find("gpu-tracing"), std::string::npos);
  EXPECT_EQ(html.find("trace window"), std::string::npos);
  const auto trace = render_chrome(r);
  EXPECT_EQ(trace.find("GPU tracing"), std::string::npos);
  EXPECT_EQ(trace.find("gpu.trace_window"), std::string::npos);

  const auto file = dir.path() / "report.json";
  write_file(file, render_json(r, {.top = 0}));
  const auto db = dir.path() / "profile.db";
  ASSERT_EQ(write_sqlite(r, db.string()), "");
  if (have_tool("python3")) {
    EXPECT_EQ(python_on_json(file, R"py(
t = d["gpu"]["tracing"]
print(t["windowed"], t["duty"], t["scale"], t["traced_ns"], t["span_ns"], t["windows"])
print([(x["in_windows"], x["windows"]) for x in d["gpu"]["devices"]])
)py"),
              "False 1 1 0 0 0\n[(False, 0), (False, 0)]\n");
  }
  if (have_tool("sqlite3")) {
    EXPECT_EQ(
        run_shell("sqlite3 " + db.string() + " \"SELECT COUNT(*) FROM gpu_trace_windows\"").out,
        "0\n");
  }
}

TEST(GpuWindowedFormats, WindowsWithoutKernelsStillSaySo) {
  // A windowed run whose windows caught no launch: not "no GPU activity".
  TempDir dir;
  {
    GpuFileWriter g(dir.path() / "app.testhost.600.gpu.cprof", 600);
    g.window(0, 10'000);
  }
  testing::FakeSymbols symbols;
  const auto r = build_report(load_results(find_results_files(dir.path())), symbols);
  EXPECT_FALSE(r.gpu.empty());
  const auto text = render_text(r, {});
  EXPECT_NE(text.find("GPU: 0 kernels"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU activity traced in windows: 10% of each 100 ms"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace cprof::report
