#pragma once
// Joins what the launching thread knew at an API call (its time, thread and call stack)
// with the activity records CUPTI delivers later for the work that call started. Both
// carry CUPTI's correlation id; activity records arrive in buffers, from CUPTI's thread,
// long after the call returned.
//
// A runtime call (cudaLaunchKernel) may run a watched driver call (cuLaunchKernel) inside
// it, with a correlation id of its own, and CUPTI's headers do not promise which of the
// two a kernel record carries: the nested id is kept as an alias of the same launch, and
// a match on either forgets both. Graph launches and batched copies give several records
// one id: those launches stay until they are swept out.
//
// Thread-safe: add/alias/forget come from the program's threads, take from CUPTI's.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cprof::gpu::cuda {

struct Launch {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC at the API call
  int64_t tid = 0;
  std::vector<uint64_t> frames;  // all return addresses (gpu/common/launch_stack.h)
};

class LaunchJoin {
 public:
  // At most `capacity` ids are remembered: calls that never produce an activity record
  // (a failed launch, a zero-byte copy, graph launches) must not grow the table forever.
  // When it is full, the older half (by correlation id, which CUPTI hands out in order)
  // is dropped.
  explicit LaunchJoin(size_t capacity = size_t{1} << 18);

  // Remembers `launch` under `correlation_id`; `many`: expect several activity records.
  void add(uint32_t correlation_id, std::shared_ptr<const Launch> launch, bool many);
  // `alias_id` (a nested call's id) names the same launch as `correlation_id`.
  void alias(uint32_t alias_id, uint32_t correlation_id);
  // The call failed: no activity record will come for it or its aliases.
  void forget(uint32_t correlation_id);
  // The launch of an activity record, or null when unknown. Forgets it (and its aliases)
  // unless it expects more records.
  std::shared_ptr<const Launch> take(uint32_t correlation_id);

  size_t pending() const;
  uint64_t swept() const;  // ids dropped because the table was full
  uint64_t added() const;  // launches added so far (one per watched outermost call)

 private:
  struct Entry {
    std::shared_ptr<const Launch> launch;
    std::shared_ptr<std::vector<uint32_t>> ids;  // every id of this launch
    bool many = false;
  };
  void erase_all_locked(const Entry& e);
  void sweep_locked();

  mutable std::mutex mutex_;
  std::unordered_map<uint32_t, Entry> entries_;
  size_t capacity_;
  uint32_t newest_ = 0;
  uint64_t swept_ = 0;
  uint64_t added_ = 0;
};

}  // namespace cprof::gpu::cuda
