#include "report/load/encoded_stacks.h"

#include <algorithm>
#include <cstring>

namespace cprof::report {
namespace {

// Eight bytes a step (most stacks are 50-150 bytes), then splitmix64's finalizer.
uint64_t hash_bytes(std::span<const uint8_t> b) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ b.size();
  size_t i = 0;
  for (; i + 8 <= b.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, b.data() + i, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    h = (h << 29) | (h >> 35);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, b.data() + i, b.size() - i);
  h = (h ^ tail) * 0x9e3779b97f4a7c15ULL;
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace

uint32_t EncodedStacks::intern(const format::SampleView& view) {
  const auto key = view.encoded_frames;
  const uint64_t h = hash_bytes(key);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint32_t slot = slots_[i];
    if (slot == 0) {
      format::decode_frames(view, scratch_);
      const uint32_t id = stacks_.intern(scratch_);
      slots_[i] = static_cast<uint32_t>(ids_.size()) + 1;
      ids_.push_back(id);
      hashes_.push_back(h);
      bytes_.insert(bytes_.end(), key.begin(), key.end());
      offsets_.push_back(bytes_.size());
      if (2 * ids_.size() > slots_.size()) grow();
      return id;
    }
    const uint32_t k = slot - 1;
    if (hashes_[k] == h && offsets_[k + 1] - offsets_[k] == key.size() &&
        std::memcmp(bytes_.data() + offsets_[k], key.data(), key.size()) == 0) {
      return ids_[k];
    }
  }
}

void EncodedStacks::grow() {
  std::vector<uint32_t> slots(slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t k = 0; k < ids_.size(); ++k) {
    size_t i = hashes_[k] & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = k + 1;
  }
  slots_ = std::move(slots);
}

}  // namespace cprof::report
