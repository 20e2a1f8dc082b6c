#pragma once
// A small JSON parser for one line of the JSON-lines inputs (and Coz's JSON output):
// objects, arrays, strings (with \u escapes), numbers, true/false/null. Numbers keep
// their text, so a 64-bit address is read exactly instead of through a double.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cprof::report {

struct JsonMember;

struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  std::string text;  // a string's value, or a number as written
  std::vector<JsonValue> items;                             // array
  std::vector<JsonMember> members;                          // object, in order

  // A member of an object, or null when absent (or not an object).
  const JsonValue* find(std::string_view key) const;
};

// A member of an object. Its own type, not std::pair: a vector of pairs holding the
// incomplete JsonValue is rejected by clang's libstdc++ checks.
struct JsonMember {
  std::string first;
  JsonValue second;
};

// Parses exactly one JSON value (surrounding white space allowed). Throws
// std::runtime_error("column N: what is wrong") for anything else.
JsonValue parse_json(std::string_view text);

}  // namespace cprof::report
