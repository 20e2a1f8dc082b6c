// The GPU part of the report's model: busy share and idle gaps on known intervals,
// pairing the GPU hooks' file with the sampler's, attribution of kernel time to launch
// sites, and records that are partial or damaged.
#include <gtest/gtest.h>

#include <fstream>

#include "report/load/gpu_load.h"
#include "report/profile/gpu_timeline.h"
#include "report/render/render.h"
#include "tests/report/gpu_fixture.h"

namespace cprof::report {
namespace {

using testing::GpuFileWriter;
using testing::gpu_report;
using testing::kUs;
using testing::TempDir;

TEST(GpuTimeline, GapBucketBoundsAreInclusiveBelow) {
  EXPECT_EQ(idle_gap_bucket(1), 0u);
  EXPECT_EQ(idle_gap_bucket(9'999), 0u);
  EXPECT_EQ(idle_gap_bucket(10'000), 1u);
  EXPECT_EQ(idle_gap_bucket(19'999), 1u);
  EXPECT_EQ(idle_gap_bucket(50'000), 3u);
  EXPECT_EQ(idle_gap_bucket(999'999), 4u);
  EXPECT_EQ(idle_gap_bucket(1'000'000), 5u);
  EXPECT_EQ(idle_gap_bucket(100'000'000), 7u);
  EXPECT_EQ(idle_gap_bucket(UINT64_MAX), 7u);
}

TEST(GpuTimeline, BusyIsTheUnionOverTheSpan) {
  // Out of order, overlapping, touching, nested.
  const auto s = summarize_busy({{1300 * kUs, 1400 * kUs},
                                 {0, 100 * kUs},
                                 {150 * kUs, 250 * kUs},
                                 {105 * kUs, 200 * kUs},
                                 {160 * kUs, 170 * kUs},
                                 {250 * kUs, 260 * kUs},
                                 {275 * kUs, 300 * kUs},
                                 {201400 * kUs, 201500 * kUs}});
  EXPECT_EQ(s.span_start_ns, 0u);
  EXPECT_EQ(s.span_ns(), 201500 * kUs);
  EXPECT_EQ(s.busy_ns, (100 + 155 + 25 + 100 + 100) * kUs);
  EXPECT_DOUBLE_EQ(s.busy_fraction(), 480.0 / 201500.0);
  EXPECT_EQ(s.gaps, 4u);  // 5, 15, 1000 and 200000 us
  const std::array<uint64_t, kIdleGapBuckets> counts{1, 1, 0, 0, 0, 1, 0, 1};
  EXPECT_EQ(s.gap_counts, counts);
  EXPECT_EQ(s.gap_ns[1], 15 * kUs);
  EXPECT_EQ(s.gap_ns[7], 200000 * kUs);
}

TEST(GpuTimeline, EmptyAndZeroLength) {
  EXPECT_EQ(summarize_busy({}).busy_fraction(), 0.0);
  const auto s = summarize_busy({{5, 5}});
  EXPECT_EQ(s.span_ns(), 0u);
  EXPECT_EQ(s.busy_fraction(), 0.0);
}

TEST(GpuLoad, CompanionFileIsTheSamplersProcess) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  ASSERT_EQ(r.files_found, 2u);
  ASSERT_EQ(r.processes.size(), 1u) << "the .gpu.cprof file is folded into pid 300";
  const auto& p = r.processes[0];
  EXPECT_EQ(p.process.engine, "timer");
  EXPECT_EQ(p.samples, 4u);
  EXPECT_EQ(p.gpu.kernels.size(), 7u);
  EXPECT_EQ(p.gpu.copies.size(), 3u);
  ASSERT_EQ(p.gpu.engines, std::vector<std::string>{"hsa"});
  ASSERT_EQ(p.gpu.files.size(), 1u);
  EXPECT_EQ(p.gpu.files[0].filename(), "app.testhost.300.gpu.cprof");
  // The runtime's module joined the process's; the app's is not there twice.
  ASSERT_EQ(p.modules.size(), 2u);
  EXPECT_EQ(p.modules[1].path, testing::kRuntimePath);
}

TEST(GpuLoad, CompanionWithoutSamplerStaysAProcess) {
  TempDir dir;
  GpuFileWriter g(dir.path() / "app.testhost.301.gpu.cprof", 301);
  g.device(1, "gfx90a", format::GpuDeviceKind::gpu);
  g.kernel("k", 0, 10, 1, {0x1011}, false);
  g.flush();
  testing::ProcessWriter other(dir.path() / "app.testhost.302.cprof", 302);  // another pid
  other.sample(1, {0x1010});
  other.close();
  const auto r = gpu_report(dir.path(), false);
  ASSERT_EQ(r.processes.size(), 2u);
  size_t with_gpu = 0;
  for (const auto& p : r.processes) with_gpu += !p.gpu.empty();
  EXPECT_EQ(with_gpu, 1u);
  EXPECT_EQ(r.gpu.kernels, 1u);
}

TEST(GpuLoad, KernelsOfTwoProcessesMergeOnOneDevice) {
  TempDir dir;
  testing::write_gpu_results(dir.path());
  {
    // Another process of the same run and host, on the same device, inside a busy stretch.
    GpuFileWriter g(dir.path() / "app.testhost.400.gpu.cprof", 400);
    g.device(1, "gfx90a", format::GpuDeviceKind::gpu);
    g.kernel("square(float*, int)", 10, 20, 1, {0x1011, 0x3011}, false, 9);
  }
  const auto r = gpu_report(dir.path(), false);
  EXPECT_EQ(r.processes.size(), 2u);
  ASSERT_EQ(r.gpu.kernel_rows[0].name, "square(float*, int)");
  EXPECT_EQ(r.gpu.kernel_rows[0].calls, 4u);
  size_t gpus = 0;
  for (const auto& d : r.gpu.devices) {
    if (d.name != "gfx90a") continue;
    ++gpus;
    EXPECT_EQ(d.kernels, 8u);
    EXPECT_EQ(d.queues, 3u);  // queues 1 and 2 of pid 300, queue 1 of pid 400
    EXPECT_EQ(d.busy.busy_ns, 480 * kUs);
  }
  EXPECT_EQ(gpus, 1u);
}

TEST(GpuProfile, KernelsByTotalTimeWithDurationStats) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  const auto& g = r.gpu;
  EXPECT_EQ(g.kernels, 7u);
  EXPECT_EQ(g.timed_kernels, 6u);
  EXPECT_EQ(g.kernel_ns, 530 * kUs);
  ASSERT_EQ(g.kernel_rows.size(), 3u);
  const auto& square = g.kernel_rows[0];
  EXPECT_EQ(square.name, "square(float*, int)");
  EXPECT_EQ(square.calls, 3u);
  EXPECT_EQ(square.untimed, 0u);
  EXPECT_EQ(square.total_ns, 230 * kUs);
  EXPECT_DOUBLE_EQ(square.duration_ns.min(), 35 * kUs);
  EXPECT_DOUBLE_EQ(square.duration_ns.max(), 100 * kUs);
  EXPECT_NEAR(square.duration_ns.mean(), 230.0 * kUs / 3, 1e-6);
  const auto& scale = g.kernel_rows[1];
  EXPECT_EQ(scale.name, "scale");
  EXPECT_EQ(scale.calls, 3u);
  EXPECT_EQ(scale.untimed, 1u);  // counted, not timed
  EXPECT_EQ(scale.total_ns, 200 * kUs);
  EXPECT_DOUBLE_EQ(scale.duration_ns.stddev(), 0.0);
  EXPECT_EQ(g.kernel_rows[2].name, "");
}

TEST(GpuProfile, KernelTimeGoesToTheLaunchSiteOutsideTheRuntime) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  const auto& g = r.gpu;
  const auto& t = r.symbols.table;
  const auto fname = [&](const GpuLaunchRow& row) {
    return row.id == GpuLaunchRow::kNoSite ? std::string("-") : t.functions[row.id].name;
  };
  ASSERT_EQ(g.launch_functions.size(), 4u);  // launch_a, launch_b, [no stack], main
  EXPECT_EQ(fname(g.launch_functions[0]), "launch_a");
  // k4's frame 0 is a return address at launch_a's end: looked up at address - 1.
  EXPECT_EQ(g.launch_functions[0].self.calls, 3u);
  EXPECT_EQ(g.launch_functions[0].self.time_ns, 230 * kUs);
  EXPECT_EQ(fname(g.launch_functions[1]), "launch_b");
  EXPECT_EQ(g.launch_functions[1].self.calls, 3u);
  EXPECT_EQ(g.launch_functions[1].self.time_ns, 200 * kUs);
  EXPECT_EQ(fname(g.launch_functions[2]), "-");
  EXPECT_EQ(g.launch_functions[2].self.time_ns, 100 * kUs);
  EXPECT_EQ(fname(g.launch_functions[3]), "main");
  EXPECT_EQ(g.launch_functions[3].self.calls, 0u);
  EXPECT_EQ(g.launch_functions[3].total.calls, 6u);
  EXPECT_EQ(g.launch_functions[3].total.time_ns, 430 * kUs);
  // The runtime's frames are not launch sites, nor on the paths.
  for (const auto& row : g.launch_functions) EXPECT_EQ(fname(row).find("libhsa"), std::string::npos);

  ASSERT_FALSE(g.launch_lines.empty());
  EXPECT_EQ(t.line_label(g.launch_lines[0].id), "/src/a.cpp:10");

  ASSERT_EQ(g.kernel_rows[0].sites.size(), 1u);
  EXPECT_EQ(t.functions[g.kernel_rows[0].sites[0].site.function].name, "launch_a");
  EXPECT_EQ(g.kernel_rows[0].sites[0].measure.calls, 3u);
  ASSERT_EQ(g.kernel_rows[2].sites.size(), 1u);
  EXPECT_TRUE(g.kernel_rows[2].sites[0].site.none());

  // Tree: main > launch_a, launch_b; [no launch stack] beside main.
  const auto& n = g.launch_tree;
  ASSERT_EQ(n.size(), 5u);
  ASSERT_EQ(n[0].children.size(), 2u);
  const auto& main = n[n[0].children[0]];
  EXPECT_EQ(t.functions[main.function].name, "main");
  EXPECT_EQ(main.total.time_ns, 430 * kUs);
  ASSERT_EQ(main.children.size(), 2u);
  EXPECT_EQ(t.functions[n[main.children[0]].function].name, "launch_a");
  EXPECT_EQ(n[main.children[0]].self.time_ns, 230 * kUs);
  EXPECT_EQ(n[n[0].children[1]].function, GpuSite::kNone);
  EXPECT_EQ(n[0].total.calls, 7u);
}

TEST(GpuProfile, DevicesAndCopies) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  const auto& g = r.gpu;
  ASSERT_EQ(g.devices.size(), 2u);  // the GPU (kernels) and the CPU agent (copies)
  const auto& gpu = g.devices[0];
  EXPECT_EQ(gpu.name, "gfx90a");
  EXPECT_EQ(gpu.kernels, 7u);
  EXPECT_EQ(gpu.queues, 2u);
  EXPECT_EQ(gpu.busy.busy_ns, 480 * kUs);
  EXPECT_EQ(gpu.busy.span_ns(), 201500 * kUs);
  const std::array<uint64_t, kIdleGapBuckets> counts{1, 1, 0, 0, 0, 1, 0, 1};
  EXPECT_EQ(gpu.busy.gap_counts, counts);
  EXPECT_EQ(g.devices[1].name, "cpu-agent");
  EXPECT_EQ(g.devices[1].kernels, 0u);
  EXPECT_EQ(g.devices[1].copies, 3u);

  ASSERT_EQ(g.copy_rows.size(), 2u);
  EXPECT_EQ(g.copy_rows[0].direction, format::CopyDirection::host_to_device);
  EXPECT_EQ(g.copy_rows[0].count, 2u);
  EXPECT_EQ(g.copy_rows[0].bytes, 2'000'000u);
  EXPECT_EQ(g.copy_rows[0].time_ns, 200 * kUs);
  EXPECT_DOUBLE_EQ(g.copy_rows[0].gb_per_s(), 10.0);
  EXPECT_EQ(g.copy_rows[1].direction, format::CopyDirection::device_to_host);
  EXPECT_EQ(g.copy_rows[1].timed, 0u);
  EXPECT_EQ(g.copy_rows[1].gb_per_s(), 0.0);
}

TEST(GpuProfile, PartialAndDamagedRecordsNeverCrash) {
  TempDir dir;
  const auto file = dir.path() / "app.testhost.500.gpu.cprof";
  {
    GpuFileWriter g(file, 500);
    // A kernel on a device no record names, inverted times, no name, no stack; a copy
    // whose devices are unknown, and one whose direction is out of range.
    g.kernel("", 50, 10, 1, {}, false, 1, 77);
    format::KernelRecord inverted;
    inverted.start_ns = testing::kT0 + 500;
    inverted.end_ns = testing::kT0;  // ends before it starts
    inverted.device_id = 77;
    g.add(inverted);
    format::CopyRecord c;
    c.src_device_id = 5;
    c.dst_device_id = 6;
    c.bytes = 10;
    g.add(c);
    c.direction = static_cast<format::CopyDirection>(200);  // the reader drops this one
    g.add(c);
    g.flush();
    g.kernel("late", 0, 10, 1, {0x1011}, false, 1, 77);
  }
  // Tear the last chunk: its records are lost, the rest stays.
  const auto size = std::filesystem::file_size(file);
  std::filesystem::resize_file(file, size - 5);
  const auto r = gpu_report(dir.path(), false);
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_FALSE(r.warnings.empty());
  const auto& g = r.gpu;
  EXPECT_EQ(g.kernels, 2u);
  EXPECT_EQ(g.timed_kernels, 0u);
  EXPECT_EQ(g.kernel_ns, 0u);
  ASSERT_EQ(g.kernel_rows.size(), 1u);
  EXPECT_EQ(g.kernel_rows[0].untimed, 2u);
  ASSERT_FALSE(g.devices.empty());
  EXPECT_EQ(g.devices[0].name, "device 77");
  EXPECT_EQ(g.devices[0].busy.busy_fraction(), 0.0);
  ASSERT_EQ(g.copy_rows.size(), 1u);
  EXPECT_EQ(g.copy_rows[0].direction, format::CopyDirection::unknown);
  EXPECT_EQ(g.copy_rows[0].count, 1u);
  // Every format renders it.
  EXPECT_NE(render_text(r, {}).find("device 77"), std::string::npos);
  EXPECT_NE(render_json(r, {}).find("\"untimed_calls\": 2"), std::string::npos);
  EXPECT_FALSE(render_html(r, {}).empty());
  EXPECT_FALSE(render_chrome(r).empty());
}

TEST(GpuProfile, NoGpuRecordsNoGpuProfile) {
  TempDir dir;
  testing::ProcessWriter w(dir.path() / "app.testhost.1.cprof", 1);
  w.sample(1, {0x1010});
  w.close();
  const auto r = gpu_report(dir.path(), false);
  EXPECT_TRUE(r.gpu.empty());
  EXPECT_TRUE(r.gpu.kernel_rows.empty());
  EXPECT_TRUE(r.gpu.launch_tree.empty());
}

}  // namespace
}  // namespace cprof::report
