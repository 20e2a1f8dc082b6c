#pragma once
// Appends records to a results file in checksummed chunks.
// Not for signal handlers: it allocates. The sampler's writer thread owns one.

#include <cstdint>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::format {

// How the warning a writer leaves when RLIMIT_FSIZE stopped it begins (the launchers'
// summary looks for it).
inline constexpr const char* kResultsCutAt = "results cut at ";

// How a writer keeps its descriptor inside a program it is a guest of (the preloaded
// runtime's sampler/runtime/owned_fds.h): `adopt` takes the descriptor just opened and
// returns the one to keep with its ticket, `owns` says whether it is still the writer's
// (the program's dup2 may have taken the number: the writer then opens its file again),
// `release` closes it. Without one, the writer opens and closes plainly.
struct DescriptorKeeper {
  int (*adopt)(int fd, uint32_t* ticket) = nullptr;
  bool (*owns)(int fd, uint32_t ticket) = nullptr;
  void (*release)(int fd, uint32_t ticket) = nullptr;
};

class ResultsWriter {
 public:
  ResultsWriter() = default;
  explicit ResultsWriter(DescriptorKeeper keeper) : keeper_(keeper) {}
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  // Creates path, which must not exist (never through a symbolic link), and writes the
  // file header. Returns an empty string on success, else one line naming the file and
  // the reason.
  std::string open(const std::string& path);
  // The same for the first of "<stem>.cprof", "<stem>.1.cprof", ... that does not exist.
  std::string open_unique(const std::string& stem);
  bool is_open() const { return open_; }
  const std::string& path() const { return path_; }

  // Buffers one record; a chunk is written when the buffer passes its size limit.
  void add(const Record& record);
  // Writes the buffered records as one chunk. Returns false on an I/O error (errno kept).
  bool flush();
  // Writes the buffered records and the file_end record (framing.h) as the last chunk: the
  // file is complete. Records added later go into further chunks, and the file reads as
  // cut again until the next finish(). Returns false on an I/O error.
  bool finish();
  // Finishes and closes. Safe to call twice.
  void close();
  // Forgets the file without flushing: a forked child drops its parent's writer this way.
  void abandon();

  uint64_t bytes_written() const { return bytes_written_; }  // to the file open now

  // Whether writing stopped short of the process's file size limit (RLIMIT_FSIZE): a write
  // past it would have raised SIGXFSZ in the program. The file ends with a warning saying so.
  bool cut_by_limit() const { return cut_by_limit_; }

 private:
  std::string adopt_and_start(int fd, const std::string& path);
  // Whether `size` more bytes stay below RLIMIT_FSIZE; writes the note once when not.
  bool within_file_size_limit(size_t size);
  bool write_all(const uint8_t* data, size_t size);
  bool write_bytes(const uint8_t* data, size_t size);
  // The descriptor to write to: fd_, or the file opened again when the keeper says the
  // number is not the writer's any more. -1 when it cannot be opened.
  int descriptor();
  void release_descriptor();

  DescriptorKeeper keeper_;
  int fd_ = -1;
  uint32_t ticket_ = 0;  // the keeper's, for fd_
  std::string path_;
  std::vector<uint8_t> pending_;
  uint32_t pending_records_ = 0;
  uint64_t bytes_written_ = 0;
  bool cut_by_limit_ = false;
  bool open_ = false;    // a file is open for writing (its descriptor may come and go)
  uint64_t device_ = 0;  // the created file's, to know it again when opened by name
  uint64_t inode_ = 0;
  uint64_t next_sequence_ = 0;  // the number of the next chunk
  std::vector<uint8_t> chunk_;
};

}  // namespace cprof::format
