#pragma once
// Reads a results file written by ResultsWriter. Damage is survivable: a chunk with a bad
// checksum, garbage between chunks or a torn tail is reported as an issue (with its byte
// offset) and reading goes on at the next intact chunk. Only a file that is not a results
// file at all, or has a newer major version, is an error (FormatError).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "format/records.h"
#include "format/sample_view.h"

namespace cprof::format {

class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReadIssue {
  uint64_t offset = 0;  // byte offset in the file
  std::string message;
};

struct ReadSummary {
  uint16_t major_version = 0;
  uint16_t minor_version = 0;
  uint64_t chunks = 0;
  uint64_t records = 0;
  uint64_t unknown_records = 0;  // types from a newer minor version, skipped
  uint64_t skipped_bytes = 0;    // bytes of damaged chunks or garbage
  // Framing records (format 1.6 on, framing.h): whether the file has them; whether its
  // last chunk holds the end record (else the writer never ended it: killed, or the file
  // was cut); chunks read twice (skipped) and chunk numbers never read.
  bool framed = false;
  bool ended = false;
  uint64_t duplicate_chunks = 0;
  uint64_t missing_chunks = 0;
  std::vector<ReadIssue> issues;
};

using RecordVisitor = std::function<void(Record&&)>;
// Given, it receives every sample record instead of `visit`, frames still encoded
// (sample_view.h); the view's spans are valid only during the call.
using SampleViewVisitor = std::function<void(const SampleView&)>;

// Calls visit for every intact record, in file order. Throws FormatError naming the file.
ReadSummary read_results_file(const std::filesystem::path& path, const RecordVisitor& visit,
                              const SampleViewVisitor& samples = {});

// Same over bytes already in memory; `name` is used in error messages.
ReadSummary read_results_bytes(std::span<const uint8_t> bytes, const std::string& name,
                               const RecordVisitor& visit, const SampleViewVisitor& samples = {});

// True when the file starts with the results-file magic (cheap check for directory scans).
bool looks_like_results_file(const std::filesystem::path& path);

}  // namespace cprof::format
