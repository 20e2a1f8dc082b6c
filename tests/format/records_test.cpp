// Every record type survives a write/read round trip through a real file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "format/reader.h"
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
  {
    ResultsWriter writer;
    ASSERT_EQ(writer.open(path), "");
    for (const Record& r : std::vector<Record>{process, module, thread, end, event, sample,
                                                 metric, message}) {
      writer.add(r);
    }
    writer.close();
  }
  std::vector<Record> got;
  const auto summary = read_results_file(path, [&](Record&& r) { got.push_back(std::move(r)); });
  std::filesystem::remove(path);
  EXPECT_TRUE(summary.issues.empty());
  ASSERT_EQ(got.size(), 8u);
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
  EXPECT_EQ(summary.minor_version, 1u);
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
