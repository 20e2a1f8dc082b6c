#include "sampler/runtime/sample_ring.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace cprof::sampler {
namespace {

SampleHeader header_for(size_t counters, size_t frames, uint64_t time) {
  SampleHeader h{};
  h.size = SampleRing::entry_size(counters, frames);
  h.counters = static_cast<uint8_t>(counters);
  h.frames = static_cast<uint16_t>(frames);
  h.time_ns = time;
  return h;
}

// The push that takes the ring past half its capacity says so, once; after the consumer
// drains it, the next crossing says so again.
TEST(SampleRing, ThePushPastHalfFullIsToldOncePerCrossing) {
  std::vector<uint8_t> storage(1024);
  SampleRing ring;
  ring.init(storage.data(), storage.size());
  uint64_t frames[16] = {};
  const auto fill = [&] {
    int past_half = 0;
    int stored = 0;
    for (SampleRing::Push p; (p = ring.push(header_for(0, 16, 0), nullptr, frames)) != SampleRing::Push::full;) {
      ++stored;
      if (p == SampleRing::Push::stored_past_half) {
        ++past_half;
        EXPECT_EQ(stored, 4) << "152-byte entries: the fourth takes 1024 bytes past 512";
      }
    }
    return past_half;
  };
  EXPECT_EQ(fill(), 1);
  SampleHeader h{};
  uint64_t out[16];
  while (ring.pop(h, nullptr, 0, out, 16)) {
  }
  EXPECT_EQ(fill(), 1);
}

TEST(SampleRing, FullRingDropsInsteadOfOverwriting) {
  std::vector<uint8_t> storage(1024);
  SampleRing ring;
  ring.init(storage.data(), storage.size());
  uint64_t frames[16] = {};
  int pushed = 0;
  while (ring.push(header_for(0, 16, pushed), nullptr, frames) != SampleRing::Push::full) ++pushed;
  EXPECT_EQ(pushed, 1024 / (24 + 128));
  SampleHeader h{};
  uint64_t out[16];
  ASSERT_TRUE(ring.pop(h, nullptr, 0, out, 16));
  EXPECT_EQ(h.time_ns, 0u);  // the oldest survives
}

TEST(SampleRing, EntriesWrapAroundTheEndIntact) {
  std::vector<uint8_t> storage(512);
  SampleRing ring;
  ring.init(storage.data(), storage.size());
  for (uint64_t i = 0; i < 1000; ++i) {
    uint64_t counters[2] = {i, i * 2};
    uint64_t frames[7];
    for (uint64_t f = 0; f < 7; ++f) frames[f] = i * 100 + f;
    ASSERT_NE(ring.push(header_for(2, 7, i), counters, frames), SampleRing::Push::full);
    SampleHeader h{};
    uint64_t c[2];
    uint64_t fr[7];
    ASSERT_TRUE(ring.pop(h, c, 2, fr, 7));
    ASSERT_EQ(h.time_ns, i);
    ASSERT_EQ(c[1], i * 2);
    ASSERT_EQ(fr[6], i * 100 + 6);
  }
  EXPECT_TRUE(ring.empty());
}

TEST(SampleRing, ProducerAndConsumerThreadsAgree) {
  std::vector<uint8_t> storage(4096);
  SampleRing ring;
  ring.init(storage.data(), storage.size());
  constexpr uint64_t kCount = 200000;
  std::thread producer([&] {
    for (uint64_t i = 0; i < kCount;) {
      uint64_t frames[3] = {i, i + 1, i + 2};
      if (ring.push(header_for(0, 3, i), nullptr, frames) != SampleRing::Push::full) ++i;
    }
  });
  uint64_t expect = 0;
  while (expect < kCount) {
    SampleHeader h{};
    uint64_t fr[3];
    if (!ring.pop(h, nullptr, 0, fr, 3)) continue;
    ASSERT_EQ(h.time_ns, expect);
    ASSERT_EQ(fr[2], expect + 2);
    ++expect;
  }
  producer.join();
}

}  // namespace
}  // namespace cprof::sampler
