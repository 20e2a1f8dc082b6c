// The bytes of every record type are pinned: one instance of each, with values that take
// every encoding off its one-byte path (negative svarints, multi-byte varints, frames and
// span begins that go down, an end before its begin), encodes to the bytes below, which
// were produced by the hand-written encoder that format/records.cpp had before its field
// tables. A change of a record's table that changes its bytes changes the format (a new
// major version, docs/results-format.md "Versioning") and fails here first.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/encoding.h"
#include "format/record_codec.h"
#include "format/records.h"

namespace cprof::format {
namespace {

std::vector<Record> every_record() {
  return {
      ProcessRecord{.pid = 4242,
                    .ppid = -1,
                    .rank = -1,
                    .hostname = "node7",
                    .executable = "/bin/app",
                    .command_line = {"/bin/app", "-x", ""},
                    .start_realtime_ns = 1700000000123456789ull,
                    .start_monotonic_ns = 99,
                    .engine = "perf_event",
                    .clock = "cpu+wall",
                    .unwinder = "dwarf",
                    .frequency_hz = 499.5,
                    .period_ns = 2002002},
      ModuleRecord{.id = 300,
                   .path = "/lib/libc.so.6",
                   .build_id = "abcdef01",
                   .load_bias = 0x7f0000000000,
                   .start = 0x7f0000001000,
                   .end = 0x7f0000100000,
                   .time_ns = 5},
      ThreadRecord{.tid = 43, .name = "worker", .time_ns = 600, .existed_before_start = true},
      ThreadEndRecord{
          .tid = -7, .time_ns = 7, .cpu_time_ns = 1ull << 40, .samples = 129, .dropped_samples = 1},
      EventRecord{.index = 1,
                  .name = "cycles",
                  .canonical_name = "PERF_COUNT_HW_CPU_CYCLES",
                  .status = EventStatus::counted_zero,
                  .detail = "no PMU"},
      SampleRecord{.tid = 43,
                   .time_ns = 10,
                   .weight_ns = 2000000,
                   .clock = SampleClock::wall,
                   .truncated = true,
                   .frames = {0x7f0000001234, 0x555555554000, 0x7f0000001000, 0},
                   .counter_deltas = {3, 0, 1ull << 40}},
      MetricRecord{.time_ns = 11,
                   .rss_bytes = 1 << 20,
                   .cpu_user_ns = 12,
                   .cpu_system_ns = 13,
                   .minor_faults = 14,
                   .major_faults = 15,
                   .voluntary_switches = 16,
                   .involuntary_switches = 17,
                   .threads = 18,
                   .cpu_frequency_khz = 2400000},
      MessageRecord{.time_ns = 19, .level = MessageLevel::error, .text = "h\xc3\xa9llo"},
      ExperimentRecord{.time_ns = 5,
                       .location = "a.cpp:42",
                       .location_id = 7,
                       .speedup = 0.35,
                       .duration_ns = 500000000,
                       .delay_ns = 12345678,
                       .period_ns = 1000000,
                       .selected_samples = 99,
                       .mode = ExperimentMode::end_to_end,
                       .progress = {{"work", 10, 0, 0, 0.0}, {"txn", 0, 300, 299, 2.75}}},
      ProgressPointRecord{.id = 3,
                          .name = "txn",
                          .kind = ProgressPointKind::latency,
                          .source = ProgressPointSource::breakpoint,
                          .file = "b.cpp",
                          .line = 1717,
                          .time_ns = 6},
      RegionRecord{.name = "txn",
                   .time_ns = 8,
                   .count = 11,
                   .mean_ns = 1500.5,
                   .stddev_ns = 20.25,
                   .min_ns = 1000,
                   .max_ns = 2000,
                   .dropped = 1},
      KernelRecord{.time_ns = 100,
                   .start_ns = 150,
                   .end_ns = 1150,
                   .device_id = 2,
                   .queue_id = 7,
                   .name = "void axpy<float>(float, float const*, float*)",
                   .dispatch_id = 41,
                   .grid = {1024, 2, 1},
                   .workgroup = {256, 1, 1},
                   .tid = 4242,
                   .frames = {0x555555554321, 0x7f0000001000, 0x555555554000},
                   .correlation_id = 9},
      CopyRecord{.time_ns = 200,
                 .start_ns = 210,
                 .end_ns = 260,
                 .bytes = 1ull << 33,
                 .direction = CopyDirection::host_to_host,
                 .src_device_id = 2,
                 .dst_device_id = 0,
                 .tid = 4243,
                 .frames = {0x400000, 0x400010},
                 .correlation_id = 10},
      GpuDeviceRecord{.id = 2, .name = "gfx90a", .kind = GpuDeviceKind::other},
      // The third span ends before it begins: written as duration 0, so it reads back
      // with end == begin and encodes again to the same bytes.
      RegionSpansRecord{
          .point_id = 4,
          .name = "work",
          .spans = {{.tid = 1234, .begin_ns = 5'000'000'000, .end_ns = 5'000'001'500},
                    {.tid = 1235, .begin_ns = 4'999'999'000, .end_ns = 5'000'002'000},
                    {.tid = -1, .begin_ns = 5'000'003'000, .end_ns = 5'000'002'000},
                    {.tid = 4194304, .begin_ns = 1ull << 62, .end_ns = (1ull << 62) + 7}}},
      GpuTraceWindowRecord{.start_ns = 5'000'000'000,
                           .end_ns = 5'010'000'000,
                           .duty = 0.1,
                           .period_ns = 100'000'000},
      ThreadNameRecord{.tid = 43, .time_ns = 20, .name = "C2 CompilerThre"},
  };
}

// Type, length and payload of each record of every_record(), in hex.
const char* const kGolden[] = {
    // process
    "0150a4420101056e6f646537082f62696e2f61707003082f62696e2f617070022d7800959a97"
    "ece39fe7cb17630a706572665f6576656e74086370752b77616c6c0564776172660000000000"
    "387f40d2987a",
    // module
    "0230ac020e2f6c69622f6c6962632e736f2e360861626364656630318080808080e01f80a080"
    "8080e01f8080c08080e01f05",
    // thread
    "030b5606776f726b6572d80401",
    // thread_end
    "040b0d07808080808020810101",
    // event
    "052901066379636c657318504552465f434f554e545f48575f4350555f4359434c455302066e"
    "6f20504d55",
    // sample
    "062c560a80897a8104e8c8808080c03fe7c8d6aad5ea1480c0d6aad5ea14ffbf808080c03f03"
    "0300808080808020",
    // metric
    "070f0b8080400c0d0e0f10111280be9201",
    // message
    "080913020668c3a96c6c6f",
    // experiment
    "10430508612e6370703a343207666666666666d63f80cab5ee01cec2f105c0843d6301020477"
    "6f726b0a000000000000000000000374786e00ac02ab020000000000000640",
    // progress_point
    "1110030374786e010205622e637070b50d06",
    // region
    "121b0374786e080b00000000007297400000000000403440e807d00f01",
    // kernel
    "2057649601fe0802072d766f696420617870793c666c6f61743e28666c6f61742c20666c6f61"
    "7420636f6e73742a2c20666c6f61742a29298008020180020101a44203c28caad5aad52abeb3"
    "d6aad5ea14ffbfd6aad5ea1409",
    // gpu_copy
    "2117c801d20184028080808020040200a6420280808004200a",
    // gpu_device
    "2209020667667839306102",
    // region_spans
    "13280404776f726b04a41380c8afa025dc0ba613cf0fb81701c03e00808080049089d0dfdaff"
    "ffff7f07",
    // gpu_trace_window
    "231680e497d0128091fad4129a9999999999b93f80c2d72f",
    // thread_name
    "091256140f433220436f6d70696c657254687265",
};

std::string hex(const std::vector<uint8_t>& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

std::vector<uint8_t> unhex(const std::string& s) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    bytes.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

TEST(RecordBytes, EveryTypeEncodesToItsGoldenBytes) {
  const auto records = every_record();
  ASSERT_EQ(records.size(), std::size(kGolden));
  ASSERT_EQ(records.size(), std::variant_size_v<Record>) << "a record type has no golden bytes";
  for (size_t i = 0; i < records.size(); ++i) {
    std::vector<uint8_t> out;
    encode_record(records[i], out);
    EXPECT_EQ(hex(out), kGolden[i])
        << "record " << i << " (variant index " << records[i].index() << ")";
  }
}

// The golden bytes decode to a record that encodes to the same bytes again: the decoder
// reads what the encoder writes, field for field.
TEST(RecordBytes, GoldenBytesDecodeAndEncodeAgain) {
  for (const char* golden : kGolden) {
    const auto bytes = unhex(golden);
    Decoder d(bytes);
    const auto type = static_cast<uint32_t>(d.varint());
    const uint64_t length = d.varint();
    const auto payload = d.bytes(length);
    ASSERT_TRUE(d.ok() && d.at_end()) << "type " << type << ": length does not match";
    ASSERT_TRUE(is_known_record_type(type)) << type;
    const auto record = decode_record(type, payload);
    ASSERT_TRUE(record) << "type " << type << " does not decode";
    std::vector<uint8_t> again;
    encode_record(*record, again);
    EXPECT_EQ(hex(again), golden) << "type " << type;
  }
}

// The smallest progress entry (an empty name, zero counts: 12 bytes) reads back: the
// bound on the entry count is the entry's least size, not more.
TEST(RecordBytes, ExperimentWithTheSmallestProgressEntryDecodes) {
  std::vector<uint8_t> framed;
  encode_record(ExperimentRecord{.progress = {{}}}, framed);
  Decoder d(framed);
  const auto type = static_cast<uint32_t>(d.varint());
  const auto payload = d.bytes(d.varint());
  const auto record = decode_record(type, payload);
  ASSERT_TRUE(record);
  EXPECT_EQ(std::get<ExperimentRecord>(*record).progress.size(), 1u);
}

}  // namespace
}  // namespace cprof::format
