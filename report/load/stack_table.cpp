#include "report/load/stack_table.h"

#include <algorithm>

namespace cprof::report {
namespace {

uint64_t mix(uint64_t x) {
  // splitmix64's finalizer: cheap and spreads nearby addresses over the whole table.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t hash_frames(std::span<const uint64_t> frames) {
  // One multiply per frame on the hot path; the finalizer spreads the result.
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ frames.size();
  for (uint64_t f : frames) {
    h = (h ^ f) * 0x9e3779b97f4a7c15ULL;
    h = (h << 29) | (h >> 35);
  }
  return mix(h);
}

}  // namespace

uint32_t StackTable::intern(std::span<const uint64_t> frames) {
  const uint64_t h = hash_frames(frames);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint32_t slot = slots_[i];
    if (slot == 0) {
      const auto id = static_cast<uint32_t>(size());
      slots_[i] = id + 1;
      hashes_.push_back(h);
      frames_.insert(frames_.end(), frames.begin(), frames.end());
      offsets_.push_back(frames_.size());
      if (2 * size() > slots_.size()) grow();
      return id;
    }
    const uint32_t id = slot - 1;
    if (hashes_[id] == h) {
      const auto known = this->frames(id);
      if (std::equal(known.begin(), known.end(), frames.begin(), frames.end())) return id;
    }
  }
}

void StackTable::grow() {
  std::vector<uint32_t> slots(slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t id = 0; id < size(); ++id) {
    size_t i = hashes_[id] & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = id + 1;
  }
  slots_ = std::move(slots);
}

uint32_t IndexMap::find_or_insert(uint64_t key, uint32_t next, bool& inserted) {
  const size_t mask = keys_.size() - 1;
  for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
    if (keys_[i] == key) {
      inserted = false;
      return values_[i];
    }
    if (keys_[i] == kEmpty) {
      keys_[i] = key;
      values_[i] = next;
      inserted = true;
      if (2 * ++size_ > keys_.size()) grow();
      return next;
    }
  }
}

void IndexMap::grow() {
  std::vector<uint64_t> keys(keys_.size() * 2, kEmpty);
  std::vector<uint32_t> values(keys.size(), 0);
  const size_t mask = keys.size() - 1;
  for (size_t j = 0; j < keys_.size(); ++j) {
    if (keys_[j] == kEmpty) continue;
    size_t i = mix(keys_[j]) & mask;
    while (keys[i] != kEmpty) i = (i + 1) & mask;
    keys[i] = keys_[j];
    values[i] = values_[j];
  }
  keys_ = std::move(keys);
  values_ = std::move(values);
}

}  // namespace cprof::report
