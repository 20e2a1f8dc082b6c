#pragma once
// Interning for the loader's hot path: every sample's frame sequence becomes a small id
// (StackTable) and every (thread, stack) pair an index into its counts (IndexMap). Both
// are open-addressing tables over flat arrays: ten million samples cost one hash and one
// or two probes each, and memory grows with the distinct stacks, not with the samples.

#include <cstdint>
#include <span>
#include <vector>

namespace cprof::report {

class StackTable {
 public:
  // The id of `frames`, added if it is new. Ids are dense: 0, 1, 2, ...
  uint32_t intern(std::span<const uint64_t> frames);

  size_t size() const { return offsets_.size() - 1; }
  std::span<const uint64_t> frames(uint32_t id) const {
    return {frames_.data() + offsets_[id], frames_.data() + offsets_[id + 1]};
  }
  // All frames of all stacks, back to back; offsets(id)..offsets(id+1) is stack id.
  std::span<const uint64_t> all_frames() const { return frames_; }
  uint64_t offset(uint32_t id) const { return offsets_[id]; }

 private:
  void grow();

  std::vector<uint64_t> frames_;
  std::vector<uint64_t> offsets_{0};
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> slots_ = std::vector<uint32_t>(1024, 0);  // id + 1; 0 = empty
};

// uint64 key -> dense uint32 value, for keys that are never UINT64_MAX.
class IndexMap {
 public:
  // Returns the value for key, inserting `next` if the key is new (inserted = true).
  uint32_t find_or_insert(uint64_t key, uint32_t next, bool& inserted);
  size_t size() const { return size_; }

 private:
  void grow();

  static constexpr uint64_t kEmpty = ~uint64_t{0};
  std::vector<uint64_t> keys_ = std::vector<uint64_t>(1024, kEmpty);
  std::vector<uint32_t> values_ = std::vector<uint32_t>(1024, 0);
  size_t size_ = 0;
};

}  // namespace cprof::report
