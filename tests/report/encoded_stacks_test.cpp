// The loader reads samples with their frames still encoded and interns stacks by those
// bytes (report/load/encoded_stacks.h): the result must be what decoding every sample
// gives, and one stack encoded two ways must still be one stack.
#include <gtest/gtest.h>

#include <map>

#include "format/reader.h"
#include "report/load/encoded_stacks.h"
#include "report/load/loader.h"
#include "tests/report/results_fixture.h"

namespace cprof::report {
namespace {

using testing::TempDir;

TEST(EncodedStacks, LoadedCountsMatchDecodingEverySample) {
  TempDir dir;
  const auto file = dir.path() / "app.host.1.cprof";
  {
    testing::ProcessWriter w(file, 1);
    uint64_t x = 7;
    for (int i = 0; i < 5000; ++i) {  // 3 threads, stacks of 1-12 frames from 40 addresses
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      std::vector<uint64_t> frames;
      for (uint64_t d = 0; d < 1 + (x >> 60) % 12; ++d) frames.push_back(0x1000 + ((x >> (d * 4)) % 40) * 0x10);
      w.sample(static_cast<int64_t>(1 + (x >> 33) % 3), frames, 1000 + (x >> 50) % 7);
    }
    w.sample(2, {});  // no stack
    w.close();
  }
  // Expected: every sample decoded whole, counted per (tid, frames).
  std::map<std::pair<int64_t, std::vector<uint64_t>>, std::pair<uint64_t, uint64_t>> want;
  format::read_results_file(file, [&](format::Record&& r) {
    if (auto* s = std::get_if<format::SampleRecord>(&r); s && !s->frames.empty()) {
      auto& [n, w] = want[{s->tid, s->frames}];
      ++n;
      w += s->weight_ns;
    }
  });
  std::vector<std::string> warnings;
  const auto p = load_process_file({.path = file}, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(p.samples, 5001u);
  EXPECT_EQ(p.empty_samples, 1u);
  std::map<std::pair<int64_t, std::vector<uint64_t>>, std::pair<uint64_t, uint64_t>> got;
  for (const auto& c : p.counts) {
    const auto f = p.stacks.frames(c.stack);
    auto& [n, w] = got[{p.threads[c.thread].tid, std::vector<uint64_t>(f.begin(), f.end())}];
    n += c.samples;
    w += c.weight_ns;
  }
  EXPECT_EQ(got, want);
  // Each distinct frame sequence is one stack.
  std::map<std::vector<uint64_t>, int> distinct;
  for (uint32_t id = 0; id < p.stacks.size(); ++id) {
    const auto f = p.stacks.frames(id);
    EXPECT_EQ(++distinct[std::vector<uint64_t>(f.begin(), f.end())], 1);
  }
}

TEST(EncodedStacks, OneStackEncodedTwoWaysIsOneStack) {
  StackTable stacks;
  EncodedStacks encoded(stacks);
  // Frames {1, 2}: deltas +1, +1 as zigzag varints (2, 2); then the same with the first
  // written as a two-byte, non-minimal varint (0x82 0x00), which a reader must accept.
  const uint8_t minimal[] = {0x02, 0x02};
  const uint8_t padded[] = {0x82, 0x00, 0x02};
  format::SampleView a{.frame_count = 2, .encoded_frames = minimal};
  format::SampleView b{.frame_count = 2, .encoded_frames = padded};
  const uint32_t id = encoded.intern(a);
  EXPECT_EQ(encoded.intern(b), id);
  EXPECT_EQ(encoded.intern(a), id);
  ASSERT_EQ(stacks.size(), 1u);
  EXPECT_EQ(std::vector<uint64_t>(stacks.frames(id).begin(), stacks.frames(id).end()),
            (std::vector<uint64_t>{1, 2}));
}

}  // namespace
}  // namespace cprof::report
