#include "causal/location.h"

#include <algorithm>

namespace cprof::causal {

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

void LocationTable::finish() {
  // Carve the address space so each byte belongs to the first location added that holds
  // it: insert ranges in id order, keeping only the parts not yet covered.
  std::vector<Entry> covered;
  for (const auto& loc : locations_) {
    for (const auto& r : loc.ranges) {
      uint64_t start = r.start;
      std::vector<Entry> pieces;
      // Existing entries are disjoint and sorted; walk those that overlap [start, end).
      auto it = std::upper_bound(covered.begin(), covered.end(), start,
                                 [](uint64_t a, const Entry& e) { return a < e.start; });
      if (it != covered.begin() && std::prev(it)->end > start) start = std::prev(it)->end;
      for (; start < r.end; ++it) {
        const uint64_t stop = it == covered.end() ? r.end : std::min(r.end, it->start);
        if (start < stop) pieces.push_back(Entry{start, stop, loc.id});
        if (it == covered.end()) break;
        start = std::max(start, it->end);
      }
      covered.insert(covered.end(), pieces.begin(), pieces.end());
      std::sort(covered.begin(), covered.end(),
                [](const Entry& a, const Entry& b) { return a.start < b.start; });
    }
  }
  index_ = std::move(covered);
}

const Location* LocationTable::find(uint64_t address) const {
  auto it = std::upper_bound(index_.begin(), index_.end(), address,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == index_.begin()) return nullptr;
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
