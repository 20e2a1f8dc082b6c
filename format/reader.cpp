#include "format/reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>

#include "format/encoding.h"
#include "format/framing.h"
#include "format/record_codec.h"

namespace cprof::format {
namespace {

uint32_t load_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// Offset of the next chunk magic at or after `from`, or bytes.size().
size_t find_next_chunk(std::span<const uint8_t> bytes, size_t from) {
  const uint8_t magic[4] = {'C', 'H', 'N', 'K'};
  const auto* begin = bytes.data();
  const std::string_view hay(reinterpret_cast<const char*>(begin), bytes.size());
  const size_t pos = hay.find(std::string_view(reinterpret_cast<const char*>(magic), 4), from);
  return pos == std::string_view::npos ? bytes.size() : pos;
}

// Decodes the records of one intact chunk. Returns false when a record is malformed.
bool read_chunk_records(std::span<const uint8_t> payload, uint32_t expected, ReadSummary& summary,
                        const RecordVisitor& visit, const SampleViewVisitor& samples,
                        std::string& problem) {
  Decoder d(payload);
  uint32_t seen = 0;
  std::vector<uint64_t> counters;  // reused by every sample view of the chunk
  while (!d.at_end()) {
    const auto type = static_cast<uint32_t>(d.varint());
    const uint64_t length = d.varint();
    const auto body = d.bytes(length);
    if (!d.ok()) {
      problem = "record " + std::to_string(seen) + " overruns its chunk";
      return false;
    }
    ++seen;
    if (type == kChunkSequenceType) continue;  // read before the chunk (chunk_sequence())
    if (type == kFileEndType) {
      summary.ended = true;
      continue;
    }
    if (!is_known_record_type(type)) {
      ++summary.unknown_records;
      continue;
    }
    if (samples && type == static_cast<uint32_t>(RecordType::sample)) {
      const auto view = decode_sample_view(body, counters);
      if (!view) {
        problem = "record " + std::to_string(seen - 1) + " (type " + std::to_string(type) +
                  ") is malformed";
        return false;
      }
      ++summary.records;
      samples(*view);
      continue;
    }
    auto record = decode_record(type, body);
    if (!record) {
      problem = "record " + std::to_string(seen - 1) + " (type " + std::to_string(type) +
                ") is malformed";
      return false;
    }
    ++summary.records;
    visit(std::move(*record));
  }
  if (seen != expected) {
    problem = "chunk holds " + std::to_string(seen) + " records, header says " +
              std::to_string(expected);
    return false;
  }
  return true;
}

// The number a chunk's payload begins with (its chunk_sequence record), if it has one.
std::optional<uint64_t> chunk_sequence(std::span<const uint8_t> payload) {
  Decoder d(payload);
  if (d.at_end() || d.varint() != kChunkSequenceType) return std::nullopt;
  const uint64_t length = d.varint();
  Decoder body(d.bytes(length));
  const uint64_t number = body.varint();
  if (!d.ok() || !body.ok()) return std::nullopt;
  return number;
}

// After the last chunk: the numbers never seen below the highest, as one issue, less the
// chunks found damaged (each of those has its issue already).
void report_missing_chunks(const std::set<uint64_t>& seen, uint64_t damaged, ReadSummary& summary) {
  if (seen.empty()) return;
  const uint64_t highest = *seen.rbegin();
  const uint64_t gap = highest + 1 - seen.size();
  summary.missing_chunks = gap > damaged ? gap - damaged : 0;
  if (summary.missing_chunks == 0) return;
  uint64_t first = 0;
  while (seen.count(first) != 0) ++first;
  summary.issues.push_back({0, std::to_string(summary.missing_chunks) + " of " +
                                   std::to_string(highest + 1) +
                                   " chunks missing (the first: number " + std::to_string(first) +
                                   "): their records are lost"});
}

}  // namespace

ReadSummary read_results_bytes(std::span<const uint8_t> bytes, const std::string& name,
                               const RecordVisitor& visit, const SampleViewVisitor& samples) {
  if (bytes.size() < kFileHeaderSize ||
      std::memcmp(bytes.data(), kFileMagic, sizeof kFileMagic) != 0) {
    throw FormatError(name + ": not a results file (no CPROFRES header)");
  }
  ReadSummary summary;
  const uint32_t version = load_u32(bytes.data() + 8);
  summary.major_version = static_cast<uint16_t>(version & 0xffff);
  summary.minor_version = static_cast<uint16_t>(version >> 16);
  if (summary.major_version > kMajorVersion) {
    throw FormatError(name + ": results format version " + std::to_string(summary.major_version) +
                      "." + std::to_string(summary.minor_version) + " is newer than this tool's " +
                      std::to_string(kMajorVersion) + "." + std::to_string(kMinorVersion) +
                      "; use a newer causal-report");
  }

  summary.framed = version >= (kMajorVersion | (uint32_t{6} << 16));
  std::set<uint64_t> sequences;  // the chunk numbers read
  uint64_t damaged_chunks = 0;   // chunks skipped for a bad length or checksum
  size_t pos = kFileHeaderSize;
  while (pos < bytes.size()) {
    // A file is complete when its last chunk holds the end record: anything after that
    // chunk, damage included, makes it cut again.
    const bool ended_before = summary.ended;
    summary.ended = false;
    const size_t left = bytes.size() - pos;
    if (left < kChunkHeaderSize || load_u32(bytes.data() + pos) != kChunkMagic) {
      // A tail shorter than a chunk header that begins as one is a torn header; read no
      // more of it than is there (a 4-byte load past the end was found by fuzzing).
      const uint8_t magic[4] = {'C', 'H', 'N', 'K'};
      if (left < kChunkHeaderSize &&
          std::memcmp(bytes.data() + pos, magic, std::min<size_t>(left, sizeof magic)) == 0) {
        summary.issues.push_back({pos, "truncated chunk header at the end of the file (torn tail)"});
        summary.skipped_bytes += left;
        break;
      }
      const size_t next = find_next_chunk(bytes, pos + 1);
      summary.issues.push_back({pos, "unreadable bytes, " + std::to_string(next - pos) +
                                         " skipped to the next chunk"});
      summary.skipped_bytes += next - pos;
      pos = next;
      continue;
    }
    const uint32_t size = load_u32(bytes.data() + pos + 4);
    const uint32_t count = load_u32(bytes.data() + pos + 8);
    const uint32_t crc = load_u32(bytes.data() + pos + 12);
    if (size > kMaxChunkPayload) {
      const size_t next = find_next_chunk(bytes, pos + 1);
      ++damaged_chunks;
      summary.issues.push_back({pos, "chunk length " + std::to_string(size) + " is corrupt"});
      summary.skipped_bytes += next - pos;
      pos = next;
      continue;
    }
    if (size > left - kChunkHeaderSize) {
      // Either the file was cut while this chunk was written, or its length field is
      // damaged and a later chunk is intact: look for one before giving up.
      const size_t next = find_next_chunk(bytes, pos + 1);
      if (next != bytes.size()) ++damaged_chunks;
      summary.issues.push_back(
          {pos, next == bytes.size()
                    ? "truncated chunk at the end of the file (torn tail): " +
                          std::to_string(left - kChunkHeaderSize) + " of " +
                          std::to_string(size) + " bytes present"
                    : "chunk length runs past the end of the file; skipped"});
      summary.skipped_bytes += next - pos;
      pos = next;
      continue;
    }
    const auto payload = bytes.subspan(pos + kChunkHeaderSize, size);
    if (chunk_checksum(size, count, payload) != crc) {
      const size_t next = find_next_chunk(bytes, pos + 1);
      ++damaged_chunks;
      summary.issues.push_back({pos, "chunk checksum mismatch; " + std::to_string(next - pos) +
                                         " bytes skipped"});
      summary.skipped_bytes += next - pos;
      pos = next;
      continue;
    }
    const std::optional<uint64_t> number = chunk_sequence(payload);
    if (number && !sequences.insert(*number).second) {
      // The same chunk again (a file or a part of it copied twice): counted once.
      ++summary.duplicate_chunks;
      summary.issues.push_back({pos, "chunk number " + std::to_string(*number) +
                                         " repeated (a copy of an earlier chunk): skipped"});
      summary.ended = ended_before;
      pos += kChunkHeaderSize + size;
      continue;
    }
    std::string problem;
    if (!read_chunk_records(payload, count, summary, visit, samples, problem)) {
      summary.issues.push_back({pos, problem + "; rest of the chunk skipped"});
    }
    ++summary.chunks;
    pos += kChunkHeaderSize + size;
  }
  report_missing_chunks(sequences, damaged_chunks, summary);
  return summary;
}

namespace {

const char* file_kind_name(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

}  // namespace

ReadSummary read_results_file(const std::filesystem::path& path, const RecordVisitor& visit,
                              const SampleViewVisitor& samples) {
  // O_NONBLOCK: a FIFO under a results file's name must not block the report.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw FormatError(path.string() + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw FormatError(path.string() + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FormatError(path.string() + ": not a regular file (" + file_kind_name(st.st_mode) +
                      "), skipped");
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    throw FormatError(path.string() + ": empty file, not a results file");
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw FormatError(path.string() + ": cannot map: " + std::strerror(errno));
  struct Unmap {
    void* p;
    size_t n;
    ~Unmap() { ::munmap(p, n); }
  } unmap{map, size};
  return read_results_bytes({static_cast<const uint8_t*>(map), size}, path.string(), visit,
                            samples);
}

bool looks_like_results_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  char head[sizeof kFileMagic] = {};
  const ssize_t n = ::read(fd, head, sizeof head);
  ::close(fd);
  return n == static_cast<ssize_t>(sizeof head) && std::memcmp(head, kFileMagic, sizeof head) == 0;
}

}  // namespace cprof::format
