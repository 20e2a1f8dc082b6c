#pragma once
// A Unicode code point appended to a string as UTF-8 (the JSON reader's \u escapes, Rust's
// $u..$ escapes in symbol names). Header-only: the symbolizer and the report use it
// without linking the format library.

#include <cstdint>
#include <string>

namespace cprof::format {

// `code` must be a scalar value (at most 0x10FFFF, not a surrogate); the caller checks.
inline void append_utf8(uint32_t code, std::string& out) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace cprof::format
