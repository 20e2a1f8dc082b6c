#include "format/writer.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "format/encoding.h"
#include "format/framing.h"

namespace cprof::format {
namespace {
constexpr size_t kChunkTarget = size_t{256} * 1024;
// Kept free below RLIMIT_FSIZE for the note that says the results were cut there.
constexpr uint64_t kLimitNoteReserve = 512;

int create_new_file(const std::string& path) {
  // O_EXCL|O_NOFOLLOW: a name planted in the results directory (a link to a file of the
  // program's user, a dangling link, a FIFO) is never opened through; the caller picks
  // another name on EEXIST (docs/results-format.md, "Threat model").
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC,
                0644);
}

// A chunk: its header (magic, payload size, record count, checksum), then the payload.
void frame_chunk(const std::vector<uint8_t>& payload, uint32_t records, std::vector<uint8_t>& out) {
  const auto size = static_cast<uint32_t>(payload.size());
  Encoder e(out);
  e.u32_fixed(kChunkMagic);
  e.u32_fixed(size);
  e.u32_fixed(records);
  e.u32_fixed(chunk_checksum(size, records, payload));
  out.insert(out.end(), payload.begin(), payload.end());
}

size_t varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

// A framing record (framing.h): type, length, one varint.
void append_framing_record(uint32_t type, uint64_t value, std::vector<uint8_t>& out) {
  Encoder e(out);
  e.varint(type);
  e.varint(varint_size(value));
  e.varint(value);
}

}  // namespace

ResultsWriter::~ResultsWriter() { close(); }

std::string ResultsWriter::open(const std::string& path) {
  close();
  const int fd = create_new_file(path);
  if (fd < 0) return path + ": cannot create results file: " + std::strerror(errno);
  return adopt_and_start(fd, path);
}

std::string ResultsWriter::open_unique(const std::string& stem) {
  close();
  std::string path = stem + ".cprof";
  int fd = create_new_file(path);
  // A pid can repeat across runs written into the same directory: never overwrite.
  for (int n = 1; fd < 0 && errno == EEXIST && n < 100000; ++n) {
    path = stem + "." + std::to_string(n) + ".cprof";
    fd = create_new_file(path);
  }
  if (fd < 0) return path + ": cannot create results file: " + std::strerror(errno);
  return adopt_and_start(fd, path);
}

std::string ResultsWriter::adopt_and_start(int fd, const std::string& path) {
  ticket_ = 0;
  fd_ = keeper_.adopt != nullptr ? keeper_.adopt(fd, &ticket_) : fd;
  if (fd_ < 0) return path + ": cannot keep results file open: " + std::strerror(errno);
  open_ = true;
  path_ = path;
  struct stat st {};
  if (::fstat(fd_, &st) == 0) {
    device_ = st.st_dev;
    inode_ = st.st_ino;
  }
  bytes_written_ = 0;  // a new file: the offset the size limit is checked against
  next_sequence_ = 0;
  cut_by_limit_ = false;
  std::vector<uint8_t> header;
  Encoder e(header);
  for (char c : kFileMagic) e.u8(static_cast<uint8_t>(c));
  e.u32_fixed(kMajorVersion | (static_cast<uint32_t>(kMinorVersion) << 16));
  e.u32_fixed(0);
  if (!write_all(header.data(), header.size())) {
    std::string err = path + ": cannot write results file: " + std::strerror(errno);
    abandon();
    return err;
  }
  return {};
}

void ResultsWriter::add(const Record& record) {
  // A chunk begins with its number (framing.h): the reader tells a copied chunk from a
  // lost one. Written in place, so that flush frames pending_ as it is.
  if (pending_records_ == 0) {
    append_framing_record(kChunkSequenceType, next_sequence_, pending_);
    ++pending_records_;
  }
  encode_record(record, pending_);
  ++pending_records_;
  if (pending_.size() >= kChunkTarget) flush();
}

bool ResultsWriter::flush() {
  if (!open_ || pending_records_ == 0) return open_;
  chunk_.clear();
  frame_chunk(pending_, pending_records_, chunk_);
  pending_.clear();
  pending_records_ = 0;
  ++next_sequence_;
  return write_all(chunk_.data(), chunk_.size());
}

bool ResultsWriter::finish() {
  if (!open_) return false;
  if (pending_records_ == 0) {  // the chunk's number first, as add() writes it
    append_framing_record(kChunkSequenceType, next_sequence_, pending_);
    ++pending_records_;
  }
  // The number of chunks with this one: the end record is in the last chunk.
  append_framing_record(kFileEndType, next_sequence_ + 1, pending_);
  ++pending_records_;
  return flush();
}

void ResultsWriter::close() {
  if (!open_) return;
  finish();
  release_descriptor();
}

void ResultsWriter::abandon() {
  release_descriptor();
  pending_.clear();
  pending_records_ = 0;
}

void ResultsWriter::release_descriptor() {
  open_ = false;
  if (fd_ < 0) return;
  if (keeper_.release != nullptr && ticket_ != 0) {
    keeper_.release(fd_, ticket_);
  } else {
    ::close(fd_);
  }
  fd_ = -1;
}

int ResultsWriter::descriptor() {
  if (fd_ >= 0 && (keeper_.owns == nullptr || keeper_.owns(fd_, ticket_))) return fd_;
  if (path_.empty()) return -1;
  // The number is the program's now (its dup2 replaced it, closing our description):
  // append to the file again through a descriptor of our own, if the name still holds
  // the file created. fd_ stays as it was when that fails, to try again at the next write.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  if (inode_ != 0 && (::fstat(fd, &st) != 0 || st.st_dev != device_ || st.st_ino != inode_)) {
    ::close(fd);  // another file under the name: never written
    return -1;
  }
  if (keeper_.adopt == nullptr) {
    fd_ = fd;
    ticket_ = 0;
    return fd_;
  }
  uint32_t ticket = 0;
  const int kept = keeper_.adopt(fd, &ticket);
  if (kept < 0) return -1;
  fd_ = kept;
  ticket_ = ticket;
  return fd_;
}

bool ResultsWriter::within_file_size_limit(size_t size) {
  if (cut_by_limit_) return false;
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return true;
  const uint64_t max = limit.rlim_cur;
  if (bytes_written_ + size + kLimitNoteReserve <= max) return true;
  // Past the limit the write would raise SIGXFSZ, whose default action ends the program:
  // stop here, and say so in the room kept for it.
  cut_by_limit_ = true;
  std::vector<uint8_t> payload;
  encode_record(MessageRecord{0, MessageLevel::warning,
                              kResultsCutAt + std::to_string(bytes_written_) +
                                  " bytes: the file size limit (RLIMIT_FSIZE, ulimit -f) of " +
                                  std::to_string(max) + " bytes would have been passed"},
                payload);
  std::vector<uint8_t> note;
  frame_chunk(payload, 1, note);
  if (bytes_written_ + note.size() <= max) write_bytes(note.data(), note.size());
  return false;
}

bool ResultsWriter::write_all(const uint8_t* data, size_t size) {
  if (!within_file_size_limit(size)) {
    errno = EFBIG;
    return false;
  }
  return write_bytes(data, size);
}

bool ResultsWriter::write_bytes(const uint8_t* data, size_t size) {
  const int fd = descriptor();
  if (fd < 0) return false;
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
    bytes_written_ += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace cprof::format
