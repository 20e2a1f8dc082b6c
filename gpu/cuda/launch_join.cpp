#include "gpu/cuda/launch_join.h"

#include <algorithm>

namespace cprof::gpu::cuda {

LaunchJoin::LaunchJoin(size_t capacity) : capacity_(std::max<size_t>(capacity, 2)) {}

void LaunchJoin::add(uint32_t correlation_id, std::shared_ptr<const Launch> launch, bool many) {
  std::lock_guard lock(mutex_);
  ++added_;
  newest_ = std::max(newest_, correlation_id);
  if (entries_.size() >= capacity_) sweep_locked();
  auto ids = std::make_shared<std::vector<uint32_t>>(1, correlation_id);
  entries_[correlation_id] = Entry{std::move(launch), std::move(ids), many};
}

void LaunchJoin::alias(uint32_t alias_id, uint32_t correlation_id) {
  if (alias_id == correlation_id) return;  // runtime and driver may share one id
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(correlation_id);
  if (it == entries_.end()) return;
  Entry e = it->second;  // a copy: the sweep and the insert may move it
  newest_ = std::max(newest_, alias_id);
  if (entries_.size() >= capacity_) sweep_locked();
  e.ids->push_back(alias_id);
  entries_[alias_id] = std::move(e);
}

void LaunchJoin::forget(uint32_t correlation_id) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(correlation_id);
  if (it == entries_.end()) return;
  const Entry e = it->second;
  erase_all_locked(e);
}

std::shared_ptr<const Launch> LaunchJoin::take(uint32_t correlation_id) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(correlation_id);
  if (it == entries_.end()) return nullptr;
  const Entry e = it->second;
  if (!e.many) erase_all_locked(e);
  return e.launch;
}

size_t LaunchJoin::pending() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

uint64_t LaunchJoin::swept() const {
  std::lock_guard lock(mutex_);
  return swept_;
}

uint64_t LaunchJoin::added() const {
  std::lock_guard lock(mutex_);
  return added_;
}

void LaunchJoin::erase_all_locked(const Entry& e) {
  for (const uint32_t id : *e.ids) entries_.erase(id);
}

void LaunchJoin::sweep_locked() {
  // Keep the ids in the newest half of the range the table may hold (the one being added
  // included).
  const uint32_t keep_from = newest_ > capacity_ / 2 ? newest_ - static_cast<uint32_t>(capacity_ / 2) : 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->first < keep_from) {
      it = entries_.erase(it);
      ++swept_;
    } else {
      ++it;
    }
  }
}

}  // namespace cprof::gpu::cuda
