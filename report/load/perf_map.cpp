#include "report/load/perf_map.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <string_view>

namespace cprof::report {
namespace {

bool parse_hex(std::string_view s, uint64_t& v) {
  if (s.starts_with("0x")) s.remove_prefix(2);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

}  // namespace

std::vector<JitSymbol> parse_perf_map(std::istream& in, uint64_t* reused) {
  // start -> (end, name), disjoint; each new line carves its range out of the old ones.
  std::map<uint64_t, std::pair<uint64_t, std::string>> ranges;
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view l(line);
    const size_t a = l.find(' ');
    const size_t b = a == std::string_view::npos ? a : l.find(' ', a + 1);
    uint64_t start = 0;
    uint64_t size = 0;
    if (b == std::string_view::npos || !parse_hex(l.substr(0, a), start) ||
        !parse_hex(l.substr(a + 1, b - a - 1), size) || size == 0 || start + size < start) {
      continue;
    }
    const uint64_t end = start + size;
    std::string name(l.substr(b + 1));
    while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
    bool over_another = false;  // covers part of an earlier function of another name
    // The old range that starts before `start` and reaches into it: keep its head (and
    // its tail past `end`, when it covers the new one whole).
    auto it = ranges.lower_bound(start);
    if (it != ranges.begin()) {
      auto prev = std::prev(it);
      if (prev->second.first > start) {
        over_another = over_another || prev->second.second != name;
        if (prev->second.first > end) ranges.emplace(end, std::make_pair(prev->second.first, prev->second.second));
        prev->second.first = start;
      }
    }
    // Old ranges that start inside the new one: dropped, or their tail kept.
    while (it != ranges.end() && it->first < end) {
      over_another = over_another || it->second.second != name;
      if (it->second.first > end) {
        ranges.emplace(end, std::make_pair(it->second.first, std::move(it->second.second)));
      }
      it = ranges.erase(it);
    }
    ranges.emplace(start, std::make_pair(end, std::move(name)));
    if (over_another && reused != nullptr) ++*reused;
  }
  std::vector<JitSymbol> out;
  out.reserve(ranges.size());
  for (auto& [start, v] : ranges) out.push_back(JitSymbol{start, v.first, std::move(v.second)});
  return out;
}

const JitSymbol* find_jit_symbol(const std::vector<JitSymbol>& symbols, uint64_t address) {
  auto it = std::upper_bound(symbols.begin(), symbols.end(), address,
                             [](uint64_t a, const JitSymbol& s) { return a < s.start; });
  if (it == symbols.begin()) return nullptr;
  --it;
  return address < it->end ? &*it : nullptr;
}

}  // namespace cprof::report
