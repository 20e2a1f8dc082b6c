#include "report/render/json_writer.h"

#include <fmt/format.h>

#include <cmath>

#include "format/utf8.h"

namespace cprof::report {

void JsonWriter::newline() {
  if (!levels_.empty() && levels_.back().compact) {
    out_ += ' ';
    return;
  }
  out_ += '\n';
  out_.append(levels_.size() * 2, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!levels_.empty()) {
    auto& level = levels_.back();
    if (!level.first) out_ += ',';
    if (!level.first || !level.compact) newline();
    level.first = false;
  }
}

JsonWriter& JsonWriter::begin_object(bool compact) {
  before_value();
  out_ += '{';
  levels_.push_back({.first = true, .compact = compact || (!levels_.empty() && levels_.back().compact)});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  const auto level = levels_.back();
  levels_.pop_back();
  if (!level.first && !level.compact) newline();
  out_ += '}';
  if (levels_.empty()) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::begin_array(bool compact) {
  before_value();
  out_ += '[';
  levels_.push_back(
      {.first = true, .compact = compact || (!levels_.empty() && levels_.back().compact)});
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  const auto level = levels_.back();
  levels_.pop_back();
  if (!level.first && !level.compact) newline();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  value(k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += '"';
  // Strict readers refuse a string that is not UTF-8: a byte outside a well-formed
  // sequence becomes U+FFFD (format/utf8.h).
  const std::string checked = format::is_valid_utf8(s) ? std::string() : format::valid_utf8(s);
  if (!checked.empty()) s = checked;
  for (const char c : s) {
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\n': out_ += "\\n"; break;
      case '\r': out_ += "\\r"; break;
      case '\t': out_ += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out_ += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out_ += c;
        }
    }
  }
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
  before_value();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
  before_value();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();
  before_value();
  out_ += fmt::format("{}", v);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

}  // namespace cprof::report
