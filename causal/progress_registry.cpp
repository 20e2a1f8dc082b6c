#include "causal/progress_registry.h"

#include <sched.h>

#include <algorithm>
#include <cmath>

namespace cprof::causal {

ProgressPoint::ProgressPoint(uint32_t id, std::string name, ProgressKind kind,
                             ProgressSource source, std::string file, uint32_t line)
    : id_(id),
      name_(std::move(name)),
      kind_(static_cast<uint8_t>(kind)),
      source_(source),
      file_(std::move(file)),
      line_(line) {}

void ProgressPoint::record_duration(uint64_t ns) {
  // Threads run on different stacks: the stack address spreads them over the stripes
  // without thread_local (whose first use may allocate, which a handler must not).
  int marker = 0;
  const auto start = (reinterpret_cast<uintptr_t>(&marker) >> 12) % kStripes;
  for (size_t i = 0; i < kStripes; ++i) {
    Stripe& s = stripes_[(start + i) % kStripes];
    if (s.busy.exchange(true, std::memory_order_acquire)) continue;
    s.stats.add(static_cast<double>(ns));
    s.busy.store(false, std::memory_order_release);
    return;
  }
  dropped_.fetch_add(1, std::memory_order_relaxed);
}

CozCounter* ProgressPoint::coz_counter(int coz_type) {
  switch (coz_type) {
    case kCozThroughput: return &visits_;
    case kCozBegin: return &begins_;
    case kCozEnd: return &ends_;
    default: return nullptr;
  }
}

ProgressCounts ProgressPoint::counts() const {
  return ProgressCounts{visits_.count.load(std::memory_order_relaxed),
                        begins_.count.load(std::memory_order_relaxed),
                        ends_.count.load(std::memory_order_relaxed)};
}

RegionStats ProgressPoint::region() const {
  RegionStats total;
  for (Stripe& s : stripes_) {
    while (s.busy.exchange(true, std::memory_order_acquire)) sched_yield();
    const RegionStats copy = s.stats;
    s.busy.store(false, std::memory_order_release);
    total.merge(copy);
  }
  return total;
}

void ProgressPoint::after_fork_in_child() {
  for (Stripe& s : stripes_) {
    if (s.busy.load(std::memory_order_relaxed)) {
      s.stats = RegionStats{};
      s.busy.store(false, std::memory_order_release);
    }
  }
}

ProgressRegistry::ProgressRegistry() = default;
ProgressRegistry::~ProgressRegistry() = default;

void ProgressRegistry::after_fork_in_child() {
  for (size_t i = 0; i < size(); ++i) at(i)->after_fork_in_child();
}

ProgressPoint* ProgressRegistry::find_or_add(const std::string& name, ProgressKind kind,
                                             ProgressSource source, const std::string& file,
                                             uint32_t line) {
  std::lock_guard lock(mutex_);
  for (const auto& p : owned_) {
    if (p->name() == name) {
      if (kind == ProgressKind::latency) p->make_latency();
      return p.get();
    }
  }
  if (owned_.size() >= kCapacity) return nullptr;
  const auto id = static_cast<uint32_t>(owned_.size());
  owned_.push_back(std::make_unique<ProgressPoint>(id, name, kind, source, file, line));
  points_[id].store(owned_.back().get(), std::memory_order_release);
  size_.store(owned_.size(), std::memory_order_release);
  return owned_.back().get();
}

CozCounter* ProgressRegistry::coz_counter(int coz_type, const char* name) {
  if (name == nullptr) return nullptr;
  const ProgressKind kind = coz_type == kCozThroughput ? ProgressKind::throughput
                                                       : ProgressKind::latency;
  ProgressPoint* p = find_or_add(name, kind, ProgressSource::coz);
  return p != nullptr ? p->coz_counter(coz_type) : nullptr;
}

std::vector<ProgressCounts> ProgressRegistry::counts() const {
  const size_t n = size();
  std::vector<ProgressCounts> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = at(i)->counts();
  return out;
}

}  // namespace cprof::causal
