#pragma once
// The results format's records as rows of named fields: the one schema behind the TSV
// and the JSON-lines inputs (docs/report.md "Text inputs"). A TSV row gives the fields in
// the schema's order; a JSON line names them. RecordAssembler turns rows into records,
// attaching `progress` rows to the experiment before them.

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "format/records.h"

namespace cprof::report {

// A bad row; the readers add "FILE:LINE: " in front.
struct RowError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RowSchema {
  std::string_view type;
  std::vector<std::string_view> fields;  // in TSV column order
};

// Every row type: process, module, thread, thread_end, sample, experiment, progress,
// progress_point, region, message. Null for an unknown type.
const RowSchema* find_row_schema(std::string_view type);

// Where a row's fields come from. Each getter throws RowError naming the field when its
// value does not parse; an absent field (JSON) reads as 0 / empty.
class RowFields {
 public:
  virtual ~RowFields() = default;
  virtual std::string str(std::string_view field) const = 0;
  virtual uint64_t u64(std::string_view field) const = 0;
  virtual int64_t i64(std::string_view field) const = 0;
  virtual double f64(std::string_view field) const = 0;
  // Addresses, innermost first (TSV: comma-separated; JSON: an array).
  virtual std::vector<uint64_t> u64_list(std::string_view field) const = 0;
};

// Number parsing shared by both readers: decimal or 0x hex; throws RowError naming `field`.
uint64_t parse_u64_field(std::string_view field, std::string_view text);
int64_t parse_i64_field(std::string_view field, std::string_view text);
double parse_f64_field(std::string_view field, std::string_view text);

class RecordAssembler {
 public:
  using Sink = std::function<void(format::Record&&)>;
  explicit RecordAssembler(Sink sink) : sink_(std::move(sink)) {}
  ~RecordAssembler() { flush(); }
  RecordAssembler(const RecordAssembler&) = delete;
  RecordAssembler& operator=(const RecordAssembler&) = delete;

  // Throws RowError for a bad value or a progress row with no experiment before it.
  void add(const RowSchema& schema, const RowFields& fields);
  // Hands on the experiment still open (call at the end of the file).
  void flush();

 private:
  Sink sink_;
  std::optional<format::ExperimentRecord> experiment_;  // open until the next non-progress row
};

}  // namespace cprof::report
