#include "report/render/text_util.h"

#include <fmt/format.h>

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

}  // namespace cprof::report
