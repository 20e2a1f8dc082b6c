#include "report/load/json_value.h"

#include <cstdint>
#include <stdexcept>

#include "format/utf8.h"

namespace cprof::report {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  JsonValue document() {
    JsonValue v = value(0);
    space();
    if (pos_ != s_.size()) fail("text after the JSON value");
    return v;
  }

 private:
  // Deep nesting is refused rather than allowed to exhaust the stack.
  static constexpr int kMaxDepth = 64;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("column " + std::to_string(pos_ + 1) + ": " + what);
  }
  void space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' ||
                                s_[pos_] == '\n')) {
      ++pos_;
    }
  }
  bool take(char c) {
    space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }

  JsonValue value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    space();
    if (pos_ >= s_.size()) fail("unexpected end of line");
    JsonValue v;
    const char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      v.kind = JsonValue::Kind::object;
      if (take('}')) return v;
      do {
        space();
        if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a member name in quotes");
        std::string key = string();
        expect(':');
        v.members.push_back(JsonMember{std::move(key), value(depth + 1)});
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      ++pos_;
      v.kind = JsonValue::Kind::array;
      if (take(']')) return v;
      do {
        v.items.push_back(value(depth + 1));
      } while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind = JsonValue::Kind::string;
      v.text = string();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = JsonValue::Kind::number;
      const size_t start = pos_;
      while (pos_ < s_.size() && (std::string_view("+-.eE").find(s_[pos_]) != std::string_view::npos ||
                                  (s_[pos_] >= '0' && s_[pos_] <= '9'))) {
        ++pos_;
      }
      v.text = std::string(s_.substr(start, pos_ - start));
    } else if (s_.substr(pos_, 4) == "true") {
      pos_ += 4;
      v.kind = JsonValue::Kind::boolean;
      v.boolean = true;
    } else if (s_.substr(pos_, 5) == "false") {
      pos_ += 5;
      v.kind = JsonValue::Kind::boolean;
    } else if (s_.substr(pos_, 4) == "null") {
      pos_ += 4;
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    return v;
  }

  unsigned hex4() {
    if (pos_ + 4 > s_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }

  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = hex4();
          // A surrogate pair is one code point.
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const uint32_t lo = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          format::append_utf8(cp, out);
          break;
        }
        default: fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

JsonValue parse_json(std::string_view text) { return Parser(text).document(); }

}  // namespace cprof::report
