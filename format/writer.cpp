#include "format/writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "format/encoding.h"
#include "format/framing.h"

namespace cprof::format {
namespace {
constexpr size_t kChunkTarget = size_t{256} * 1024;
}

ResultsWriter::~ResultsWriter() { close(); }

std::string ResultsWriter::open(const std::string& path) {
  close();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return path + ": cannot create results file: " + std::strerror(errno);
  fd_ = keeper_.adopt != nullptr ? keeper_.adopt(fd, &ticket_) : fd;
  if (fd_ < 0) return path + ": cannot keep results file open: " + std::strerror(errno);
  path_ = path;
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
  encode_record(record, pending_);
  ++pending_records_;
  if (pending_.size() >= kChunkTarget) flush();
}

bool ResultsWriter::flush() {
  if (fd_ < 0 || pending_records_ == 0) return fd_ >= 0;
  const auto size = static_cast<uint32_t>(pending_.size());
  chunk_.clear();
  Encoder e(chunk_);
  e.u32_fixed(kChunkMagic);
  e.u32_fixed(size);
  e.u32_fixed(pending_records_);
  e.u32_fixed(chunk_checksum(size, pending_records_, pending_));
  chunk_.insert(chunk_.end(), pending_.begin(), pending_.end());
  pending_.clear();
  pending_records_ = 0;
  return write_all(chunk_.data(), chunk_.size());
}

void ResultsWriter::close() {
  if (fd_ < 0) return;
  flush();
  release_descriptor();
}

void ResultsWriter::abandon() {
  release_descriptor();
  pending_.clear();
  pending_records_ = 0;
}

void ResultsWriter::release_descriptor() {
  if (fd_ < 0) return;
  if (keeper_.release != nullptr) {
    keeper_.release(fd_, ticket_);
  } else {
    ::close(fd_);
  }
  fd_ = -1;
}

int ResultsWriter::descriptor() {
  if (keeper_.owns == nullptr || keeper_.owns(fd_, ticket_)) return fd_;
  // The number is the program's now (its dup2 replaced it, closing our description):
  // append to the file again through a descriptor of our own. fd_ stays as it was when
  // that fails, to try again at the next write.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return -1;
  uint32_t ticket = 0;
  const int kept = keeper_.adopt(fd, &ticket);
  if (kept < 0) return -1;
  fd_ = kept;
  ticket_ = ticket;
  return fd_;
}

bool ResultsWriter::write_all(const uint8_t* data, size_t size) {
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
