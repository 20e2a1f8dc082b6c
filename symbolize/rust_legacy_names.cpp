#include "symbolize/rust_legacy_names.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <utility>
#include <vector>

#include "format/utf8.h"

namespace cprof::symbolize {
namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// "h" and 16 hex digits: the hash rustc puts last.
bool is_hash(std::string_view part) {
  if (part.size() != 17 || part[0] != 'h') return false;
  for (const char c : part.substr(1)) {
    if (!is_hex(c)) return false;
  }
  return true;
}

// The escape at the start of `text` ("$LT$", "$u7b$", ...) appended as its character;
// the number of bytes it took, or 0 when it is not one rustc writes.
size_t decode_escape(std::string_view text, std::string& out) {
  const size_t close = text.find('$', 1);
  if (close == std::string_view::npos) return 0;
  const std::string_view name = text.substr(1, close - 1);
  static constexpr std::array<std::pair<std::string_view, char>, 8> kNamed{{
      {"SP", '@'}, {"BP", '*'}, {"RF", '&'}, {"LT", '<'},
      {"GT", '>'}, {"LP", '('}, {"RP", ')'}, {"C", ','},
  }};
  for (const auto& [spelled, c] : kNamed) {
    if (name == spelled) {
      out += c;
      return close + 1;
    }
  }
  if (name.size() < 2 || name[0] != 'u') return 0;
  uint32_t code = 0;
  const char* first = name.data() + 1;
  const char* last = name.data() + name.size();
  const auto [end, error] = std::from_chars(first, last, code, 16);
  if (error != std::errc() || end != last || code > 0x10FFFF || (code >= 0xD800 && code < 0xE000)) {
    return 0;
  }
  format::append_utf8(code, out);
  return close + 1;
}

// One part of the path, its escapes decoded and ".." spelled "::".
bool decode_part(std::string_view part, std::string& out) {
  if (part.starts_with("_$")) part.remove_prefix(1);  // rustc's guard for a leading '$'
  for (size_t i = 0; i < part.size();) {
    const char c = part[i];
    if (c == '$') {
      const size_t used = decode_escape(part.substr(i), out);
      if (used == 0) return false;
      i += used;
    } else if (c == '.') {
      const bool pair = i + 1 < part.size() && part[i + 1] == '.';
      out += pair ? "::" : ".";
      i += pair ? 2 : 1;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_') {
      out += c;
      ++i;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> rust_legacy_name(std::string_view mangled) {
  if (!mangled.starts_with("_ZN")) return std::nullopt;
  std::string_view rest = mangled.substr(3);
  std::vector<std::string_view> parts;
  while (!rest.empty() && rest[0] != 'E') {
    size_t digits = 0;
    size_t length = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
      length = length * 10 + static_cast<size_t>(rest[digits] - '0');
      ++digits;
      if (length > rest.size()) return std::nullopt;
    }
    if (digits == 0 || length == 0 || digits + length > rest.size()) return std::nullopt;
    parts.push_back(rest.substr(digits, length));
    rest.remove_prefix(digits + length);
  }
  if (rest.empty()) return std::nullopt;  // no 'E'
  rest.remove_prefix(1);
  // Anything after the name but a ".suffix" (LLVM's ".llvm.1234") is Itanium: a C++
  // function's parameter types.
  if (!rest.empty() && rest[0] != '.') return std::nullopt;
  if (parts.size() < 2 || !is_hash(parts.back())) return std::nullopt;
  std::string out;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (i > 0) out += "::";
    if (!decode_part(parts[i], out)) return std::nullopt;
  }
  return out;
}

}  // namespace cprof::symbolize
