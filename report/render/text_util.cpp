#include "report/render/text_util.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

namespace cprof::report {

std::string with_commas(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string signed_duration(int64_t ns) {
  if (ns == 0) return "0";
  return (ns > 0 ? "+" : "-") + human_duration(static_cast<uint64_t>(std::llabs(ns)));
}

std::string human_duration(uint64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns < 1'000) return fmt::format("{} ns", ns);
  if (ns < 1'000'000) return fmt::format("{:.3g} us", v / 1e3);
  if (ns < 1'000'000'000) return fmt::format("{:.3g} ms", v / 1e6);
  if (v < 120e9) return fmt::format("{:.3g} s", v / 1e9);
  if (v < 7200e9) return fmt::format("{:.3g} min", v / 60e9);
  return fmt::format("{:.3g} h", v / 3600e9);
}

std::string fit_right(std::string_view s, size_t width) {
  if (s.size() <= width) return std::string(s);
  if (width <= 3) return std::string(s.substr(0, width));
  return std::string(s.substr(0, width - 3)) + "...";
}

std::string fit_left(std::string_view s, size_t width) {
  if (s.size() <= width) return std::string(s);
  if (width <= 3) return std::string(s.substr(s.size() - width));
  return "..." + std::string(s.substr(s.size() - (width - 3)));
}

std::string_view base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

namespace {

// Replaces every outermost bracketed part opened by `open` with open + "..." + close.
std::string collapse_brackets(std::string_view s, char open, char close) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == open) {
      if (depth++ == 0) out += std::string(1, open) + "...";
      continue;
    }
    if (c == close && depth > 0) {
      if (--depth == 0) out += close;
      continue;
    }
    if (depth == 0) out += c;
  }
  return out;
}

}  // namespace

std::string compact_function_name(std::string_view name, size_t width) {
  std::string s(name);
  if (s.size() <= width) return s;
  // A compiler clone's suffix, " (.constprop.0)" or " [clone .cold]", goes first.
  for (const char* clone : {" (.", " [clone ."}) {
    if (const size_t pos = s.rfind(clone); pos != std::string::npos) s.resize(pos);
  }
  if (s.size() <= width) return s;
  for (size_t pos; (pos = s.find("(anonymous namespace)")) != std::string::npos;) {
    s.replace(pos, 21, "(anon)");
  }
  if (s.size() > width) s = collapse_brackets(s, '<', '>');
  if (s.size() > width) {
    // The parameter list: the first '(' that follows a name (not "(anon)::" at the
    // start), up to its matching ')'.
    size_t open = std::string::npos;
    for (size_t i = 1; i < s.size() && open == std::string::npos; ++i) {
      const char before = s[i - 1];
      if (s[i] == '(' && (std::isalnum(static_cast<unsigned char>(before)) != 0 ||
                          before == '_' || before == '>')) {
        open = i;
      }
    }
    if (open != std::string::npos) {
      int depth = 0;
      for (size_t i = open; i < s.size(); ++i) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0) {
          s.replace(open, i - open + 1, "(...)");
          break;
        }
      }
    }
  }
  return fit_right(s, width);
}

void add_wrapped(std::string& out, size_t width, std::string text) {
  while (text.size() > width) {
    size_t keep = 0;  // the first line's length
    size_t next = 0;  // where the continuation starts
    if (const auto semi = text.rfind("; ", width - 1); semi != std::string::npos && semi >= 8) {
      keep = semi + 1;
      next = semi + 2;
    } else if (const auto space = text.rfind(' ', width - 1);
               space != std::string::npos && space >= 8) {
      keep = space;
      next = space + 1;
    } else {
      break;
    }
    out += text.substr(0, keep);
    out += '\n';
    text = "      " + text.substr(next);
  }
  add_line(out, width, text);
}

void add_line(std::string& out, size_t width, std::string_view text) {
  out += fit_right(text, width);
  out += '\n';
}

std::string percent_cell(double fraction) { return fmt::format("{:>6.2f}%", 100 * fraction); }

std::string plural(uint64_t n, const char* word, const char* words) {
  if (n == 1) return fmt::format("1 {}", word);
  return words == nullptr ? fmt::format("{} {}s", with_commas(n), word)
                          : fmt::format("{} {}", with_commas(n), words);
}

}  // namespace cprof::report
