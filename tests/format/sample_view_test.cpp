// decode_sample_view gives what decode_record gives for a sample, frames left encoded;
// the report interns stacks by those bytes (report/load/encoded_stacks.h).
#include <gtest/gtest.h>

#include "format/encoding.h"
#include "format/record_codec.h"
#include "format/sample_view.h"

namespace cprof::format {
namespace {

// The payload of one encoded record (encode_record frames it: type, length, payload).
std::vector<uint8_t> payload_of(const Record& r) {
  std::vector<uint8_t> framed;
  encode_record(r, framed);
  Decoder d(framed);
  d.varint();
  const auto body = d.bytes(d.varint());
  return {body.begin(), body.end()};
}

TEST(SampleView, SameFieldsAsTheDecodedRecord) {
  // Frames that go down as well as up, and deltas of 1 to 10 bytes.
  const SampleRecord sample{.tid = -43, .time_ns = 10, .weight_ns = 2000000,
                            .clock = SampleClock::wall, .truncated = true,
                            .frames = {0x7f0000001234, 0x555555554000, 0x7f0000001000, 0, 1,
                                       ~uint64_t{0}},
                            .counter_deltas = {3, 0, 1ull << 40}};
  const auto body = payload_of(sample);
  std::vector<uint64_t> counters;
  const auto view = decode_sample_view(body, counters);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->tid, -43);
  EXPECT_EQ(view->time_ns, 10u);
  EXPECT_EQ(view->weight_ns, 2000000u);
  EXPECT_EQ(view->clock, SampleClock::wall);
  EXPECT_TRUE(view->truncated);
  EXPECT_EQ(view->frame_count, 6u);
  EXPECT_EQ(std::vector<uint64_t>(view->counter_deltas.begin(), view->counter_deltas.end()),
            sample.counter_deltas);
  std::vector<uint64_t> frames{99};
  decode_frames(*view, frames);
  EXPECT_EQ(frames, sample.frames);
  // The encoded frames are exactly the bytes between the count and the counters.
  const auto decoded = decode_record(static_cast<uint32_t>(RecordType::sample), body);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(std::get<SampleRecord>(*decoded).frames, frames);
}

TEST(SampleView, NoFramesNoCounters) {
  const auto body = payload_of(SampleRecord{.tid = 1, .time_ns = 2, .weight_ns = 3});
  std::vector<uint64_t> counters{7};
  const auto view = decode_sample_view(body, counters);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->frame_count, 0u);
  EXPECT_TRUE(view->encoded_frames.empty());
  EXPECT_TRUE(view->counter_deltas.empty());
}

TEST(SampleView, MalformedPayloadsAreRefused) {
  const auto body = payload_of(SampleRecord{.tid = 1, .frames = {0x1000, 0x2000, 0x3000}});
  std::vector<uint64_t> counters;
  // Cut inside the frames: the third frame never ends.
  EXPECT_FALSE(decode_sample_view(std::span(body).first(body.size() - 3), counters));
  // A clock that does not exist.
  auto bad = body;
  bad[3] = 5;  // tid, time, weight are one byte each here; then the flags
  EXPECT_FALSE(decode_sample_view(bad, counters));
}

}  // namespace
}  // namespace cprof::format
