// Every record type survives a write/read round trip through a real file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "format/framing.h"
#include "format/reader.h"
#include "format/record_codec.h"
#include "format/writer.h"

namespace cprof::format {
namespace {

std::filesystem::path temp_file(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string(name) + "." + std::to_string(getpid()) + ".cprof");
}

TEST(Records, RoundTripEveryType) {
  const auto path = temp_file("roundtrip");
  ProcessRecord process{.pid = 42, .ppid = 1, .rank = 3, .hostname = "node7",
                        .executable = "/bin/app", .command_line = {"/bin/app", "-x", ""},
                        .start_realtime_ns = 1700000000000000000ull, .start_monotonic_ns = 99,
                        .engine = "perf_event", .clock = "cpu", .unwinder = "libunwind",
                        .frequency_hz = 499.5, .period_ns = 2002002};
  ModuleRecord module{.id = 2, .path = "/lib/libc.so.6", .build_id = "abcdef01",
                      .load_bias = 0x7f0000000000, .start = 0x7f0000001000,
                      .end = 0x7f0000100000, .time_ns = 5};
  ThreadRecord thread{.tid = 43, .name = "worker", .time_ns = 6, .existed_before_start = true};
  ThreadEndRecord end{.tid = 43, .time_ns = 7, .cpu_time_ns = 8, .samples = 9,
                      .dropped_samples = 1};
  EventRecord event{.index = 1, .name = "cycles", .canonical_name = "PERF_COUNT_HW_CPU_CYCLES",
                    .status = EventStatus::unavailable, .detail = "no PMU"};
  // Frames that go down as well as up exercise the signed deltas.
  SampleRecord sample{.tid = 43, .time_ns = 10, .weight_ns = 2000000, .clock = SampleClock::wall,
                      .truncated = true,
                      .frames = {0x7f0000001234, 0x555555554000, 0x7f0000001000, 0},
                      .counter_deltas = {3, 0, 1ull << 40}};
  MetricRecord metric{.time_ns = 11, .rss_bytes = 1 << 20, .cpu_user_ns = 12, .cpu_system_ns = 13,
                      .minor_faults = 14, .major_faults = 15, .voluntary_switches = 16,
                      .involuntary_switches = 17, .threads = 18, .cpu_frequency_khz = 2400000};
  MessageRecord message{.time_ns = 19, .level = MessageLevel::warning, .text = "héllo"};
  ThreadNameRecord renamed{.tid = 43, .time_ns = 20, .name = "C2 CompilerThre"};
  {
    ResultsWriter writer;
    ASSERT_EQ(writer.open(path), "");
    for (const Record& r : std::vector<Record>{process, module, thread, end, event, sample,
                                                 metric, message, renamed}) {
      writer.add(r);
    }
    writer.close();
  }
  std::vector<Record> got;
  const auto summary = read_results_file(path, [&](Record&& r) { got.push_back(std::move(r)); });
  std::filesystem::remove(path);
  EXPECT_TRUE(summary.issues.empty());
  ASSERT_EQ(got.size(), 9u);
  const auto& p = std::get<ProcessRecord>(got[0]);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.command_line, process.command_line);
  EXPECT_EQ(p.frequency_hz, 499.5);
  EXPECT_EQ(p.period_ns, 2002002u);
  EXPECT_EQ(std::get<ModuleRecord>(got[1]).build_id, "abcdef01");
  EXPECT_EQ(std::get<ModuleRecord>(got[1]).end, module.end);
  EXPECT_TRUE(std::get<ThreadRecord>(got[2]).existed_before_start);
  EXPECT_EQ(std::get<ThreadEndRecord>(got[3]).dropped_samples, 1u);
  EXPECT_EQ(std::get<EventRecord>(got[4]).status, EventStatus::unavailable);
  const auto& s = std::get<SampleRecord>(got[5]);
  EXPECT_EQ(s.frames, sample.frames);
  EXPECT_EQ(s.counter_deltas, sample.counter_deltas);
  EXPECT_EQ(s.clock, SampleClock::wall);
  EXPECT_TRUE(s.truncated);
  EXPECT_EQ(std::get<MetricRecord>(got[6]).cpu_frequency_khz, 2400000u);
  EXPECT_EQ(std::get<MessageRecord>(got[7]).text, "héllo");
  EXPECT_EQ(std::get<ThreadNameRecord>(got[8]).tid, 43);
  EXPECT_EQ(std::get<ThreadNameRecord>(got[8]).time_ns, 20u);
  EXPECT_EQ(std::get<ThreadNameRecord>(got[8]).name, "C2 CompilerThre");
}

// The causal records (types 16-18) survive a round trip too.
TEST(Records, RoundTripCausalTypes) {
  const auto path = temp_file("causal");
  ExperimentRecord exp{.time_ns = 5, .location = "a.cpp:42", .location_id = 7,
                       .speedup = 0.35, .duration_ns = 500000000, .delay_ns = 12345678,
                       .period_ns = 1000000, .selected_samples = 99,
                       .mode = ExperimentMode::end_to_end,
                       .progress = {{"work", 10, 0, 0, 0.0}, {"txn", 0, 12, 11, 2.75}}};
  ProgressPointRecord point{.id = 3, .name = "txn", .kind = ProgressPointKind::latency,
                            .source = ProgressPointSource::breakpoint, .file = "b.cpp",
                            .line = 17, .time_ns = 6};
  RegionRecord region{.name = "txn", .time_ns = 8, .count = 11, .mean_ns = 1500.5,
                      .stddev_ns = 20.25, .min_ns = 1000, .max_ns = 2000, .dropped = 1};
  {
    ResultsWriter writer;
    ASSERT_EQ(writer.open(path), "");
    writer.add(exp);
    writer.add(point);
    writer.add(region);
    writer.close();
  }
  std::vector<Record> got;
  const auto summary = read_results_file(path, [&](Record&& r) { got.push_back(std::move(r)); });
  std::filesystem::remove(path);
  EXPECT_TRUE(summary.issues.empty());
  EXPECT_EQ(summary.unknown_records, 0u);
  EXPECT_EQ(summary.minor_version, kMinorVersion);
  ASSERT_EQ(got.size(), 3u);
  const auto& e = std::get<ExperimentRecord>(got[0]);
  EXPECT_EQ(e.location, "a.cpp:42");
  EXPECT_EQ(e.location_id, 7u);
  EXPECT_EQ(e.speedup, 0.35);
  EXPECT_EQ(e.duration_ns, 500000000u);
  EXPECT_EQ(e.delay_ns, 12345678u);
  EXPECT_EQ(e.period_ns, 1000000u);
  EXPECT_EQ(e.selected_samples, 99u);
  EXPECT_EQ(e.mode, ExperimentMode::end_to_end);
  ASSERT_EQ(e.progress.size(), 2u);
  EXPECT_EQ(e.progress[1].name, "txn");
  EXPECT_EQ(e.progress[1].begin, 12u);
  EXPECT_EQ(e.progress[1].end, 11u);
  EXPECT_EQ(e.progress[1].mean_in_flight, 2.75);
  EXPECT_EQ(e.progress[0].visits, 10u);
  const auto& p = std::get<ProgressPointRecord>(got[1]);
  EXPECT_EQ(p.id, 3u);
  EXPECT_EQ(p.kind, ProgressPointKind::latency);
  EXPECT_EQ(p.source, ProgressPointSource::breakpoint);
  EXPECT_EQ(p.file, "b.cpp");
  EXPECT_EQ(p.line, 17u);
  const auto& g = std::get<RegionRecord>(got[2]);
  EXPECT_EQ(g.count, 11u);
  EXPECT_EQ(g.mean_ns, 1500.5);
  EXPECT_EQ(g.stddev_ns, 20.25);
  EXPECT_EQ(g.min_ns, 1000u);
  EXPECT_EQ(g.max_ns, 2000u);
  EXPECT_EQ(g.dropped, 1u);
}

// The GPU records (types 32-34) survive a round trip too.
TEST(Records, RoundTripGpuTypes) {
  const auto path = temp_file("gpu");
  KernelRecord kernel{.time_ns = 100, .start_ns = 150, .end_ns = 1150, .device_id = 2,
                      .queue_id = 7, .name = "void axpy<float>(float, float const*, float*)",
                      .dispatch_id = 41, .grid = {1024, 2, 1}, .workgroup = {256, 1, 1},
                      .tid = 4242, .frames = {0x555555554321, 0x7f0000001000, 0x555555554000},
                      .correlation_id = 9};
  CopyRecord copy{.time_ns = 200, .start_ns = 210, .end_ns = 260, .bytes = 1ull << 33,
                  .direction = CopyDirection::device_to_host, .src_device_id = 2,
                  .dst_device_id = 0, .tid = 4243, .frames = {0x400000, 0x400010},
                  .correlation_id = 10};
  GpuDeviceRecord device{.id = 2, .name = "gfx90a", .kind = GpuDeviceKind::gpu};
  {
    ResultsWriter writer;
    ASSERT_EQ(writer.open(path), "");
    writer.add(device);
    writer.add(kernel);
    writer.add(copy);
    writer.close();
  }
  std::vector<Record> got;
  const auto summary = read_results_file(path, [&](Record&& r) { got.push_back(std::move(r)); });
  std::filesystem::remove(path);
  EXPECT_TRUE(summary.issues.empty());
  EXPECT_EQ(summary.unknown_records, 0u);
  ASSERT_EQ(got.size(), 3u);
  const auto& d = std::get<GpuDeviceRecord>(got[0]);
  EXPECT_EQ(d.id, 2u);
  EXPECT_EQ(d.name, "gfx90a");
  EXPECT_EQ(d.kind, GpuDeviceKind::gpu);
  const auto& k = std::get<KernelRecord>(got[1]);
  EXPECT_EQ(k.time_ns, 100u);
  EXPECT_EQ(k.start_ns, 150u);
  EXPECT_EQ(k.end_ns, 1150u);
  EXPECT_EQ(k.device_id, 2u);
  EXPECT_EQ(k.queue_id, 7u);
  EXPECT_EQ(k.name, kernel.name);
  EXPECT_EQ(k.dispatch_id, 41u);
  EXPECT_EQ(k.grid[0], 1024u);
  EXPECT_EQ(k.grid[1], 2u);
  EXPECT_EQ(k.grid[2], 1u);
  EXPECT_EQ(k.workgroup[0], 256u);
  EXPECT_EQ(k.tid, 4242);
  EXPECT_EQ(k.frames, kernel.frames);
  EXPECT_EQ(k.correlation_id, 9u);
  const auto& c = std::get<CopyRecord>(got[2]);
  EXPECT_EQ(c.time_ns, 200u);
  EXPECT_EQ(c.start_ns, 210u);
  EXPECT_EQ(c.end_ns, 260u);
  EXPECT_EQ(c.bytes, 1ull << 33);
  EXPECT_EQ(c.direction, CopyDirection::device_to_host);
  EXPECT_EQ(c.src_device_id, 2u);
  EXPECT_EQ(c.dst_device_id, 0u);
  EXPECT_EQ(c.tid, 4243);
  EXPECT_EQ(c.frames, copy.frames);
  EXPECT_EQ(c.correlation_id, 10u);
}

TEST(Records, RoundTripGpuTraceWindow) {
  const auto path = temp_file("window");
  GpuTraceWindowRecord w{.start_ns = 5'000'000'000, .end_ns = 5'010'000'000, .duty = 0.1,
                         .period_ns = 100'000'000};
  {
    ResultsWriter writer;
    ASSERT_EQ(writer.open(path), "");
    writer.add(w);
    writer.close();
  }
  std::vector<Record> got;
  const auto summary = read_results_file(path, [&](Record&& r) { got.push_back(std::move(r)); });
  std::filesystem::remove(path);
  EXPECT_TRUE(summary.issues.empty());
  ASSERT_EQ(got.size(), 1u);
  const auto& g = std::get<GpuTraceWindowRecord>(got[0]);
  EXPECT_EQ(g.start_ns, w.start_ns);
  EXPECT_EQ(g.end_ns, w.end_ns);
  EXPECT_EQ(g.duty, 0.1);
  EXPECT_EQ(g.period_ns, w.period_ns);
}

// A window that ends before it starts, or a duty outside (0, 1], is malformed.
TEST(Records, GpuTraceWindowOutOfOrderOrBadDutyIsMalformed) {
  const auto encoded = [](GpuTraceWindowRecord w) {
    std::vector<uint8_t> framed;
    encode_record(w, framed);
    // type (1 byte: 35) and length (1 byte) come first: the payload is the rest.
    return std::vector<uint8_t>(framed.begin() + 2, framed.end());
  };
  const auto type = static_cast<uint32_t>(RecordType::gpu_trace_window);
  EXPECT_TRUE(decode_record(type, encoded({.start_ns = 1, .end_ns = 2, .duty = 1, .period_ns = 5})));
  EXPECT_FALSE(decode_record(type, encoded({.start_ns = 3, .end_ns = 2, .duty = 0.5, .period_ns = 5})));
  EXPECT_FALSE(decode_record(type, encoded({.start_ns = 1, .end_ns = 2, .duty = 0, .period_ns = 5})));
  EXPECT_FALSE(decode_record(type, encoded({.start_ns = 1, .end_ns = 2, .duty = 1.5, .period_ns = 5})));
}

// Region spans (type 19): begins stored as signed deltas (a later span may begin
// earlier), durations as varints; negative and large tids, a zero-length call, and an
// empty batch survive.
TEST(Records, RoundTripRegionSpans) {
  const auto path = temp_file("spans");
  RegionSpansRecord spans{.point_id = 4, .name = "work",
                          .spans = {{.tid = 1234, .begin_ns = 5'000'000'000, .end_ns = 5'000'001'500},
                                    {.tid = 1235, .begin_ns = 4'999'999'000, .end_ns = 5'000'002'000},
                                    {.tid = -1, .begin_ns = 5'000'003'000, .end_ns = 5'000'003'000},
                                    {.tid = 4194304, .begin_ns = 1ull << 62, .end_ns = (1ull << 62) + 7}}};
  RegionSpansRecord empty{.point_id = 0, .name = "", .spans = {}};
  {
    ResultsWriter writer;
    ASSERT_EQ(writer.open(path), "");
    writer.add(spans);
    writer.add(empty);
    writer.close();
  }
  std::vector<Record> got;
  const auto summary = read_results_file(path, [&](Record&& r) { got.push_back(std::move(r)); });
  std::filesystem::remove(path);
  EXPECT_TRUE(summary.issues.empty());
  EXPECT_EQ(summary.unknown_records, 0u);
  ASSERT_EQ(got.size(), 2u);
  const auto& g = std::get<RegionSpansRecord>(got[0]);
  EXPECT_EQ(g.point_id, 4u);
  EXPECT_EQ(g.name, "work");
  ASSERT_EQ(g.spans.size(), spans.spans.size());
  for (size_t i = 0; i < g.spans.size(); ++i) {
    EXPECT_EQ(g.spans[i].tid, spans.spans[i].tid) << i;
    EXPECT_EQ(g.spans[i].begin_ns, spans.spans[i].begin_ns) << i;
    EXPECT_EQ(g.spans[i].end_ns, spans.spans[i].end_ns) << i;
  }
  EXPECT_TRUE(std::get<RegionSpansRecord>(got[1]).spans.empty());
}

// A span count larger than the payload could hold is malformed, not an allocation.
TEST(Records, RegionSpansWithImpossibleCountIsMalformed) {
  std::vector<uint8_t> payload = {4, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3};
  EXPECT_FALSE(decode_record(static_cast<uint32_t>(RecordType::region_spans), payload));
}

// Known types are not one contiguous range: the gaps between the parts are unknown.
TEST(Records, KnownTypesAreExactlyTheDefinedOnes) {
  for (uint32_t t : {1u, 2u, 8u, 9u, 16u, 18u, 19u, 32u, 33u, 34u, 35u}) EXPECT_TRUE(is_known_record_type(t)) << t;
  for (uint32_t t : {0u, 10u, 15u, 20u, 31u, 36u, 47u, 48u}) EXPECT_FALSE(is_known_record_type(t)) << t;
}

TEST(Records, ManyChunksKeepOrder) {
  const auto path = temp_file("chunks");
  {
    ResultsWriter writer;
    ASSERT_EQ(writer.open(path), "");
    for (int i = 0; i < 50000; ++i) {
      writer.add(SampleRecord{.tid = i, .frames = std::vector<uint64_t>(20, 0x400000u + i)});
      if (i % 1000 == 0) writer.flush();
    }
  }
  int64_t expect = 0;
  const auto summary = read_results_file(path, [&](Record&& r) {
    EXPECT_EQ(std::get<SampleRecord>(r).tid, expect++);
  });
  std::filesystem::remove(path);
  EXPECT_EQ(expect, 50000);
  EXPECT_GT(summary.chunks, 50u);
  EXPECT_TRUE(summary.issues.empty());
}

TEST(Records, OpenFailsWithOneLineNamingThePath) {
  ResultsWriter writer;
  const std::string err = writer.open("/nonexistent-dir/x.cprof");
  EXPECT_NE(err.find("/nonexistent-dir/x.cprof"), std::string::npos);
  EXPECT_NE(err.find("No such file"), std::string::npos);
  EXPECT_EQ(err.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace cprof::format
