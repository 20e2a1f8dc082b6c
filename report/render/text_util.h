#pragma once
// Small formatting helpers shared by the text renderers.

#include <cstdint>
#include <string>
#include <string_view>

namespace cprof::report {

// 1234567 -> "1,234,567"
std::string with_commas(uint64_t n);
// Nanoseconds in the unit that reads best: "850 ns", "12.3 ms", "4.56 s", "2.5 min", "1.2 h".
std::string human_duration(uint64_t ns);
// At most `width` characters; a cut shows as "..." at the end.
std::string fit_right(std::string_view s, size_t width);
// At most `width` characters; a cut keeps the end ("...ir/file.cpp:12").
std::string fit_left(std::string_view s, size_t width);
// A C++ function name shortened to `width` by dropping what says least first: a
// compiler clone's suffix, the "(anonymous namespace)" prefix, then template arguments, then the parameter list; only
// then is the end cut.
std::string compact_function_name(std::string_view name, size_t width);
// The last path component.
std::string_view base_name(std::string_view path);

}  // namespace cprof::report
