#pragma once
// UTF-8 for the outputs: a code point appended as UTF-8 (the JSON reader's \u escapes,
// Rust's $u..$ escapes in symbol names), and the checks that keep bytes a program chose
// (file names, arguments, thread names: any bytes but NUL on Linux) from making an output
// unreadable (docs/report.md, "Text encoding"). Header-only: the symbolizer and the report
// use it without linking the format library.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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

// The length of the well-formed UTF-8 sequence at s[i] (1 to 4), or 0 when the byte there
// does not begin one (a stray continuation byte, an overlong form, a surrogate, past
// U+10FFFF, a sequence cut short). *code receives the code point.
inline size_t utf8_sequence(std::string_view s, size_t i, uint32_t* code) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *code = b0;
    return 1;
  }
  size_t n = 0;
  uint32_t cp = 0;
  uint32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code = cp;
  return n;
}

// `s` with every byte that is not part of well-formed UTF-8 replaced by U+FFFD (the
// replacement character), for the outputs whose readers require UTF-8: JSON, Chrome's
// trace, speedscope, the Firefox profile, SQLite TEXT, Coz, pprof's strings.
inline std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = utf8_sequence(s, i, &cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

inline bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = utf8_sequence(s, i, &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// `s` for a terminal: control characters (C0 but tab, DEL, C1) and bytes that are not
// UTF-8 written as \xNN, so that a thread named with an escape sequence cannot retitle
// or clear the terminal of whoever reads the report.
// With `keep_newlines`, a newline passes (a whole report's text).
inline std::string printable_text(std::string_view s, bool keep_newlines = false) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  const auto escape = [&](unsigned char b) {
    out += "\\x";
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  };
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = utf8_sequence(s, i, &cp);
    if (n == 0) {
      escape(static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if ((cp < 0x20 && cp != '\t' && !(keep_newlines && cp == '\n')) || cp == 0x7F ||
        (cp >= 0x80 && cp < 0xA0)) {
      for (size_t k = 0; k < n; ++k) escape(static_cast<unsigned char>(s[i + k]));
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace cprof::format
