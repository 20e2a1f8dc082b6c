#include "causal/location.h"

#include <algorithm>
#include <map>

#include "causal/rng.h"

namespace cprof::causal {

namespace {

std::optional<uint32_t> line_number(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  uint64_t line = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    line = line * 10 + static_cast<uint64_t>(c - '0');
    if (line > UINT32_MAX) return std::nullopt;
  }
  return static_cast<uint32_t>(line);
}

}  // namespace

std::optional<LineSpan> parse_line_span(std::string_view name) {
  const size_t colon = name.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == name.size())
    return std::nullopt;
  const std::string_view numbers = name.substr(colon + 1);
  const size_t dash = numbers.find('-');
  const auto first = line_number(numbers.substr(0, dash));
  const auto last = dash == std::string_view::npos ? first : line_number(numbers.substr(dash + 1));
  if (!first || !last) return std::nullopt;
  return LineSpan{name.substr(0, colon), *first, *last};
}

void Location::normalize() {
  std::sort(ranges.begin(), ranges.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.start < b.start; });
  std::vector<AddressRange> merged;
  for (const auto& r : ranges) {
    if (r.end <= r.start) continue;
    if (!merged.empty() && r.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, r.end);
    } else {
      merged.push_back(r);
    }
  }
  ranges = std::move(merged);
}

bool Location::contains(uint64_t address) const {
  if (loaded != nullptr && !loaded->load(std::memory_order_acquire)) return false;
  // upper_bound on start: the candidate is the range just before it.
  auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                             [](uint64_t a, const AddressRange& r) { return a < r.start; });
  if (it == ranges.begin()) return false;
  --it;
  return address < it->end;
}

bool stack_hits(const Location& location, std::span<const uint64_t> frames) {
  for (size_t i = 0; i < frames.size(); ++i) {
    const uint64_t pc = i == 0 ? frames[i] : frames[i] - 1;
    if (location.contains(pc)) return true;
  }
  return false;
}

uint32_t LocationTable::add(std::string name, std::vector<AddressRange> ranges) {
  Location loc;
  loc.id = static_cast<uint32_t>(locations_.size());
  loc.name = std::move(name);
  loc.ranges = std::move(ranges);
  loc.normalize();
  locations_.push_back(std::move(loc));
  return locations_.back().id;
}

uint32_t LocationTable::add_unloaded(std::string name, std::vector<AddressRange> file_ranges) {
  const uint32_t id = add(std::move(name), std::move(file_ranges));
  attached_bias_.resize(locations_.size(), 0);
  attached_bias_[id] = kNotAttached;
  return id;
}

void LocationTable::finish() {
  attached_bias_.resize(locations_.size(), 0);
  if (std::find(attached_bias_.begin(), attached_bias_.end(), kNotAttached) !=
      attached_bias_.end()) {
    loaded_ = std::make_unique<std::atomic<bool>[]>(locations_.size());
    for (auto& loc : locations_) {
      if (attached_bias_[loc.id] == kNotAttached) loc.loaded = &loaded_[loc.id];
    }
  }
  publish();
}

bool LocationTable::attach(uint32_t id, uint64_t bias) {
  Location& loc = locations_[id];
  if (loc.loaded == nullptr) return true;  // loaded at start
  if (attached_bias_[id] == kNotAttached) {
    // Not loaded: no handler reads these ranges until the flag says so (release).
    for (auto& r : loc.ranges) r = AddressRange{r.start + bias, r.end + bias};
    attached_bias_[id] = bias;
  } else if (attached_bias_[id] != bias) {
    return false;
  }
  loaded_[id].store(true, std::memory_order_release);
  return true;
}

void LocationTable::detach(uint32_t id) {
  if (locations_[id].loaded != nullptr) loaded_[id].store(false, std::memory_order_release);
}

bool LocationTable::is_loaded(uint32_t id) const {
  const Location& loc = locations_[id];
  return loc.loaded == nullptr || loc.loaded->load(std::memory_order_acquire);
}

void LocationTable::publish() {
  // Carve the address space so each byte belongs to the first location added that holds
  // it: insert ranges in id order, keeping only the parts not yet covered. The covered
  // parts live in a map keyed by start (disjoint), so each range costs a lookup and the
  // entries it overlaps: a library's ~100,000 lines with a million ranges take well under
  // a second (re-sorting a vector per range took minutes, before the program started).
  std::map<uint64_t, Entry> covered;
  for (const auto& loc : locations_) {
    if (!is_loaded(loc.id)) continue;
    for (const auto& r : loc.ranges) {
      uint64_t start = r.start;
      auto it = covered.upper_bound(start);
      if (it != covered.begin() && std::prev(it)->second.end > start) {
        start = std::prev(it)->second.end;
      }
      while (start < r.end) {
        const uint64_t stop = it == covered.end() ? r.end : std::min(r.end, it->first);
        if (start < stop) covered.emplace_hint(it, start, Entry{start, stop, loc.id});
        if (it == covered.end()) break;
        start = std::max(start, it->second.end);
        ++it;
      }
    }
  }
  auto index = std::make_unique<std::vector<Entry>>();
  index->reserve(covered.size());
  for (const auto& [start, e] : covered) index->push_back(e);
  index_.store(index.get(), std::memory_order_release);
  indexes_.push_back(std::move(index));
}

const Location* LocationTable::find(uint64_t address) const {
  const std::vector<Entry>* index = index_.load(std::memory_order_acquire);
  if (index == nullptr) return nullptr;
  auto it = std::upper_bound(index->begin(), index->end(), address,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == index->begin()) return nullptr;
  --it;
  return address < it->end ? &locations_[it->id] : nullptr;
}

const Location* LocationTable::first_in_stack(std::span<const uint64_t> frames) const {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (const Location* l = find(i == 0 ? frames[i] : frames[i] - 1)) return l;
  }
  return nullptr;
}

std::vector<uint32_t> RecentLocations::snapshot() const {
  std::vector<uint32_t> out;
  for (const auto& s : slots_) {
    const uint32_t id = s.load(std::memory_order_relaxed);
    if (id != kEmpty) out.push_back(id);
  }
  return out;
}

void RecentLocations::clear() {
  for (auto& s : slots_) s.store(kEmpty, std::memory_order_relaxed);
}

}  // namespace cprof::causal

namespace cprof::causal {

std::vector<uint64_t> LocationTally::counts() const {
  std::vector<uint64_t> out(size_);
  for (size_t i = 0; i < size_; ++i) out[i] = counts_[i].load(std::memory_order_relaxed);
  return out;
}

std::optional<uint32_t> draw_by_count(std::span<const uint64_t> counts, uint64_t seed) {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  if (total == 0) return std::nullopt;
  Rng rng(seed);
  uint64_t pick = rng.below(total);
  for (size_t i = 0; i < counts.size(); ++i) {
    if (pick < counts[i]) return static_cast<uint32_t>(i);
    pick -= counts[i];
  }
  return std::nullopt;  // not reached: pick < total
}

}  // namespace cprof::causal
