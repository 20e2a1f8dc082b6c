#pragma once
// Appends records to a results file in checksummed chunks.
// Not for signal handlers: it allocates. The sampler's writer thread owns one.

#include <cstdint>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::format {

class ResultsWriter {
 public:
  ResultsWriter() = default;
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  // Creates (truncates) path and writes the file header. Returns an empty string on
  // success, else one line naming the file and the reason.
  std::string open(const std::string& path);
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

  // Buffers one record; a chunk is written when the buffer passes its size limit.
  void add(const Record& record);
  // Writes the buffered records as one chunk. Returns false on an I/O error (errno kept).
  bool flush();
  // Flushes and closes. Safe to call twice.
  void close();
  // Forgets the file without flushing: a forked child drops its parent's writer this way.
  void abandon();

  uint64_t bytes_written() const { return bytes_written_; }

 private:
  bool write_all(const uint8_t* data, size_t size);

  int fd_ = -1;
  std::string path_;
  std::vector<uint8_t> pending_;
  uint32_t pending_records_ = 0;
  uint64_t bytes_written_ = 0;
  std::vector<uint8_t> chunk_;
};

}  // namespace cprof::format
