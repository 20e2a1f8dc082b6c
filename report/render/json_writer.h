#pragma once
// A minimal streaming JSON writer: objects, arrays, escaped strings, finite numbers.
// Commas are tracked per nesting level, so callers only say what comes next.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cprof::report {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  // A compact container and everything in it is written on one line (profile rows).
  JsonWriter& begin_object(bool compact = false);
  JsonWriter& end_object();
  JsonWriter& begin_array(bool compact = false);
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint32_t v) { return value(static_cast<uint64_t>(v)); }
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(double v);  // NaN and infinities become null
  JsonWriter& value(bool v);
  JsonWriter& null();

  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    return key(k).value(v);
  }

 private:
  void before_value();
  void newline();

  std::string& out_;
  struct Level {
    bool first = true;  // nothing written in it yet
    bool compact = false;
  };
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace cprof::report
