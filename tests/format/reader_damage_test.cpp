// A damaged results file loses only the damaged chunk: torn tails, flipped bytes,
// garbage and foreign files are all reported with a place, and the rest is read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "format/framing.h"
#include "format/reader.h"
#include "format/writer.h"

namespace cprof::format {
namespace {

// Three chunks of 100 samples each, then the chunk with the end record; returns the
// file's bytes and the four chunk offsets.
std::vector<uint8_t> three_chunk_file(std::vector<size_t>& chunk_offsets) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("damage." + std::to_string(getpid()) + ".cprof");
  {
    ResultsWriter writer;
    EXPECT_EQ(writer.open(path), "");
    for (int c = 0; c < 3; ++c) {
      chunk_offsets.push_back(writer.bytes_written());
      for (int i = 0; i < 100; ++i) writer.add(SampleRecord{.tid = c, .frames = {1, 2, 3}});
      writer.flush();
    }
    chunk_offsets.push_back(writer.bytes_written());  // the last chunk: the end record
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  std::filesystem::remove(path);
  return bytes;
}

std::vector<int64_t> tids_read(std::span<const uint8_t> bytes, ReadSummary& summary) {
  std::vector<int64_t> tids;
  summary = read_results_bytes(bytes, "test.cprof",
                               [&](Record&& r) { tids.push_back(std::get<SampleRecord>(r).tid); });
  return tids;
}

TEST(ReaderDamage, EveryTruncationKeepsTheWholeChunksBeforeIt) {
  std::vector<size_t> offsets;
  const auto bytes = three_chunk_file(offsets);
  for (size_t cut = offsets[2] + 1; cut < offsets[3]; ++cut) {
    ReadSummary summary;
    const auto tids = tids_read(std::span(bytes).first(cut), summary);
    ASSERT_EQ(tids.size(), 200u) << "cut at " << cut;
    ASSERT_EQ(summary.issues.size(), 1u) << "cut at " << cut;
    EXPECT_NE(summary.issues[0].message.find("torn tail"), std::string::npos)
        << summary.issues[0].message;
    EXPECT_EQ(summary.issues[0].offset, offsets[2]);
  }
}

TEST(ReaderDamage, FlippedByteLosesOnlyItsChunk) {
  std::vector<size_t> offsets;
  auto bytes = three_chunk_file(offsets);
  bytes[offsets[1] + kChunkHeaderSize + 10] ^= 0xff;
  ReadSummary summary;
  const auto tids = tids_read(bytes, summary);
  ASSERT_EQ(tids.size(), 200u);
  EXPECT_EQ(tids.front(), 0);
  EXPECT_EQ(tids.back(), 2);
  ASSERT_EQ(summary.issues.size(), 1u);
  EXPECT_EQ(summary.issues[0].offset, offsets[1]);
  EXPECT_NE(summary.issues[0].message.find("checksum"), std::string::npos);
}

TEST(ReaderDamage, DamagedLengthFieldIsSkippedAndLaterChunksRead) {
  std::vector<size_t> offsets;
  auto bytes = three_chunk_file(offsets);
  bytes[offsets[0] + 6] = 0x7f;  // payload length now far beyond the file
  ReadSummary summary;
  const auto tids = tids_read(bytes, summary);
  EXPECT_EQ(tids.size(), 200u);
  ASSERT_FALSE(summary.issues.empty());
  EXPECT_EQ(summary.issues[0].offset, offsets[0]);
}

TEST(ReaderDamage, GarbageBetweenChunksIsSkipped) {
  std::vector<size_t> offsets;
  auto bytes = three_chunk_file(offsets);
  bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(offsets[1]), 37, 0xAB);
  ReadSummary summary;
  const auto tids = tids_read(bytes, summary);
  EXPECT_EQ(tids.size(), 300u);
  ASSERT_EQ(summary.issues.size(), 1u);
  EXPECT_EQ(summary.skipped_bytes, 37u);
}

TEST(ReaderDamage, NotAResultsFileIsAnError) {
  const std::string text = "hello, this is not a profile at all";
  const std::span bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  EXPECT_THROW(read_results_bytes(bytes, "x.txt", [](Record&&) {}), FormatError);
}

TEST(ReaderDamage, NewerMajorVersionIsAClearError) {
  std::vector<size_t> offsets;
  auto bytes = three_chunk_file(offsets);
  bytes[8] = kMajorVersion + 1;
  try {
    read_results_bytes(bytes, "new.cprof", [](Record&&) {});
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("new.cprof"), std::string::npos) << e.what();
  }
}

// What a 1.2 reader does with a 1.3 file: a region_spans record (type 19) is a type it
// does not know, framed like any record, so it skips it by its length and reads on.
// Simulated with a type this reader does not know either, carrying a real spans payload.
TEST(ReaderDamage, RegionSpansPayloadUnderAnUnknownTypeIsSkipped) {
  std::vector<uint8_t> spans;
  encode_record(RegionSpansRecord{.point_id = 1, .name = "work",
                                  .spans = {{.tid = 7, .begin_ns = 100, .end_ns = 250}}},
                spans);
  spans[0] = 30;  // type 19 -> 30: unknown to this reader as 19 is to a 1.2 one
  std::vector<uint8_t> payload = spans;
  encode_record(SampleRecord{.tid = 5}, payload);
  std::vector<uint8_t> bytes(kFileMagic, kFileMagic + 8);
  for (uint8_t b : {1, 0, 3, 0, 0, 0, 0, 0}) bytes.push_back(b);  // v1.3
  const auto size = static_cast<uint32_t>(payload.size());
  const uint32_t crc = chunk_checksum(size, 2, payload);
  for (uint32_t v : {kChunkMagic, size, 2u, crc}) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  ReadSummary summary;
  const auto tids = tids_read(bytes, summary);
  EXPECT_EQ(tids, std::vector<int64_t>{5});
  EXPECT_EQ(summary.unknown_records, 1u);
  EXPECT_TRUE(summary.issues.empty());
}

TEST(ReaderDamage, UnknownRecordTypeFromNewerMinorVersionIsSkipped) {
  std::vector<uint8_t> payload = {99, 3, 1, 2, 3};  // type 99, 3 bytes
  encode_record(SampleRecord{.tid = 5}, payload);
  std::vector<uint8_t> bytes(kFileMagic, kFileMagic + 8);
  for (uint8_t b : {1, 0, 1, 0, 0, 0, 0, 0}) bytes.push_back(b);  // v1.1
  const auto size = static_cast<uint32_t>(payload.size());
  const uint32_t crc = chunk_checksum(size, 2, payload);
  for (uint32_t v : {kChunkMagic, size, 2u, crc}) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  ReadSummary summary;
  const auto tids = tids_read(bytes, summary);
  EXPECT_EQ(tids, std::vector<int64_t>{5});
  EXPECT_EQ(summary.unknown_records, 1u);
  EXPECT_TRUE(summary.issues.empty());
}

// Format 1.6 framing records (framing.h): a file is whole only with its end record, a
// chunk copied twice counts once, and a chunk lost is said.
TEST(ReaderDamage, OnlyAFileWithItsEndRecordReadsAsComplete) {
  std::vector<size_t> offsets;
  const auto bytes = three_chunk_file(offsets);
  ReadSummary whole;
  EXPECT_EQ(tids_read(bytes, whole).size(), 300u);
  EXPECT_TRUE(whole.framed);
  EXPECT_TRUE(whole.ended);
  EXPECT_TRUE(whole.issues.empty());
  // Cut exactly at a chunk edge (what a SIGKILL or a full disk leaves): nothing is torn,
  // but the end is missing.
  for (const size_t edge : {offsets[1], offsets[2], offsets[3]}) {
    ReadSummary cut;
    tids_read(std::span(bytes).first(edge), cut);
    EXPECT_FALSE(cut.ended) << "cut at " << edge;
    EXPECT_TRUE(cut.issues.empty()) << "cut at " << edge;
  }
}

TEST(ReaderDamage, AChunkCopiedTwiceIsCountedOnce) {
  std::vector<size_t> offsets;
  const auto bytes = three_chunk_file(offsets);
  std::vector<uint8_t> doubled(bytes.begin(), bytes.begin() + static_cast<long>(offsets[2]));
  doubled.insert(doubled.end(), bytes.begin() + static_cast<long>(offsets[1]),
                 bytes.begin() + static_cast<long>(offsets[2]));  // chunk 1 again
  doubled.insert(doubled.end(), bytes.begin() + static_cast<long>(offsets[2]), bytes.end());
  ReadSummary summary;
  const auto tids = tids_read(doubled, summary);
  EXPECT_EQ(tids.size(), 300u);
  EXPECT_EQ(summary.duplicate_chunks, 1u);
  ASSERT_EQ(summary.issues.size(), 1u);
  EXPECT_NE(summary.issues[0].message.find("repeated"), std::string::npos);
  EXPECT_TRUE(summary.ended);
}

TEST(ReaderDamage, AChunkCutOutIsNamedAsMissing) {
  std::vector<size_t> offsets;
  const auto bytes = three_chunk_file(offsets);
  std::vector<uint8_t> holed(bytes.begin(), bytes.begin() + static_cast<long>(offsets[1]));
  holed.insert(holed.end(), bytes.begin() + static_cast<long>(offsets[2]), bytes.end());
  ReadSummary summary;
  EXPECT_EQ(tids_read(holed, summary).size(), 200u);
  EXPECT_EQ(summary.missing_chunks, 1u);
  ASSERT_EQ(summary.issues.size(), 1u);
  EXPECT_NE(summary.issues[0].message.find("1 of 4 chunks missing"), std::string::npos)
      << summary.issues[0].message;
}

// A tail shorter than a chunk header was read as 4 bytes, past the end of the file
// (found by fuzz/results_reader_fuzzer.cpp; ASan builds fail here without the fix).
TEST(ReaderDamage, ATailShorterThanAChunkHeaderIsReadNoFurther) {
  std::vector<size_t> offsets;
  const auto bytes = three_chunk_file(offsets);
  for (const std::string tail : {"C", "CHN", "x", "xyz"}) {
    std::vector<uint8_t> file(bytes.begin(), bytes.end());
    file.insert(file.end(), tail.begin(), tail.end());
    file.shrink_to_fit();
    ReadSummary summary;
    EXPECT_EQ(tids_read(file, summary).size(), 300u) << tail;
    ASSERT_EQ(summary.issues.size(), 1u) << tail;
    EXPECT_NE(summary.issues[0].message.find(tail[0] == 'C' ? "torn tail" : "unreadable bytes"),
              std::string::npos)
        << tail << ": " << summary.issues[0].message;
  }
}

}  // namespace
}  // namespace cprof::format
