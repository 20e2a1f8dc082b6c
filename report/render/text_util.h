#pragma once
// Small formatting helpers shared by the text renderers.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cprof::report {

// 1234567 -> "1,234,567"
std::string with_commas(uint64_t n);
// Nanoseconds in the unit that reads best: "850 ns", "12.3 ms", "4.56 s", "2.5 min", "1.2 h".
std::string human_duration(uint64_t ns);
// A change of time: "+1.5 ms", "-200 µs", "0".
std::string signed_duration(int64_t ns);
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
// Appends `text`, cut to `width` columns, and a newline.
void add_line(std::string& out, size_t width, std::string_view text);
// Appends `text` wrapped at `width` after a "; " that fits, else at a space, the
// continuation indented: a warning is read whole, never cut at the width.
void add_wrapped(std::string& out, size_t width, std::string text);
// A fraction as a percentage cell: " 42.00%" (7 columns).
std::string percent_cell(double fraction);
// "1,234 samples", "1 call"; with `words`, its plural: "2 processes", "1 process".
std::string plural(uint64_t n, const char* word, const char* words = nullptr);

// Top-down trees (the call tree, the GPU launch tree): nodes under 0.5% of the time are
// hidden when the output is limited (--top), and indents stop growing at 40 columns (a
// "[depth] " tag says how deep the line is from there on).
inline constexpr double kTreeMinFraction = 0.005;
inline constexpr size_t kTreeMaxIndent = 40;

// Walks a tree stored as nodes[0] = root, each node with `children` (hottest first) and a
// `depth`, depth-first from the root's children. A node whose fraction(node) is under
// `min_fraction`, or met after `max_lines` lines, is skipped with its subtree and counted.
// emit(node, indent) writes one line. Returns the count of hidden subtrees.
template <class Node, class Fraction, class Emit>
size_t walk_tree_lines(const std::vector<Node>& nodes, double min_fraction, size_t max_lines,
                       Fraction fraction, Emit emit) {
  size_t lines = 0, hidden = 0;
  std::vector<uint32_t> todo(nodes[0].children.rbegin(), nodes[0].children.rend());
  while (!todo.empty()) {
    const auto& n = nodes[todo.back()];
    todo.pop_back();
    if (fraction(n) < min_fraction || lines == max_lines) {
      ++hidden;
      continue;
    }
    const size_t depth = n.depth - 1;
    std::string indent(std::min(2 * depth, kTreeMaxIndent), ' ');
    if (2 * depth > kTreeMaxIndent) indent += fmt::format("[{}] ", depth);
    emit(n, indent);
    ++lines;
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) todo.push_back(*it);
  }
  return hidden;
}

}  // namespace cprof::report
