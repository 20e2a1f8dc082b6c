#include "causal/runtime/breakpoints.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "causal/runtime/patched_counters.h"

namespace cprof::causal {
namespace {

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::string BreakpointPoints::add(ProgressPoint* point, uint64_t address, const PatchPlan* plan,
                                  std::string* patch_error) {
  std::lock_guard lock(mutex_);
  if (point == nullptr) return {};
  if (plan != nullptr) {
    std::string why;
    if (std::atomic<uint64_t>* counter = patch_counter(address, *plan, why, CodeState::at_start)) {
      append(point, {address, {}, 0}, counter);
      return {};
    }
    if (patch_error != nullptr) *patch_error = why;
  }
  const size_t most = kind_ == VisitCounter::breakpoint ? kMaxBreakpoints : kMaxUprobes;
  if (kernel_places_ >= most) {
    return "more than " + std::to_string(most) + " places to count (" + to_string(kind_) + "s)";
  }
  CodePlace place{address, {}, 0};
  if (kind_ == VisitCounter::uprobe) {
    auto found = code_place(address);
    if (!found) return "no loaded file holds its address 0x" + hex(address);
    place = std::move(*found);
  }
  append(point, std::move(place), nullptr);
  ++kernel_places_;
  return {};
}

std::string BreakpointPoints::add_loaded(ProgressPoint* point, uint64_t address,
                                         const PatchPlan& plan) {
  std::lock_guard lock(mutex_);
  std::string why;
  std::atomic<uint64_t>* counter = patch_counter(address, plan, why, CodeState::just_loaded);
  if (counter == nullptr) return why;
  append(point, {address, {}, 0}, counter);
  return {};
}

void BreakpointPoints::append(ProgressPoint* point, CodePlace place,
                              std::atomic<uint64_t>* counter) {
  points_.push_back(point);
  places_.push_back(std::move(place));
  patched_.push_back(counter);
  retired_.push_back(0);
  reported_.push_back(0);
  for (auto& t : threads_) t.fds.push_back(sampler::adopt_fd(-1));
}

std::string BreakpointPoints::arm(pid_t tid) {
  std::lock_guard lock(mutex_);
  if (points_.empty()) return {};
  Thread t{tid, {}};
  std::string error;
  for (size_t p = 0; p < places_.size(); ++p) {
    const CodePlace& place = places_[p];
    if (patched_[p] != nullptr) {  // counted in the code, by every thread
      t.fds.push_back(sampler::adopt_fd(-1));
      continue;
    }
    const sampler::OwnedFd fd = sampler::adopt_fd(open_visit_counter(kind_, place, tid));
    if (fd.fd < 0 && error.empty()) {
      error = std::string(to_string(kind_)) + " at 0x" + hex(place.address) + ": " +
              std::strerror(errno);
    }
    t.fds.push_back(fd);
  }
  threads_.push_back(std::move(t));
  return error;
}

uint64_t BreakpointPoints::read_count(sampler::OwnedFd fd) {
  uint64_t value = 0;
  // Not a number the program has taken with dup2 since: that read would consume its data.
  if (!sampler::owns(fd) || ::read(fd.fd, &value, sizeof value) != sizeof value) return 0;
  return value;
}

void BreakpointPoints::retire(pid_t tid) {
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < threads_.size(); ++i) {
    if (threads_[i].tid != tid) continue;
    for (size_t p = 0; p < threads_[i].fds.size(); ++p) {
      retired_[p] += read_count(threads_[i].fds[p]);
      sampler::close_owned(threads_[i].fds[p]);
    }
    threads_.erase(threads_.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
}

void BreakpointPoints::forget_all() {
  std::lock_guard lock(mutex_);
  for (auto& t : threads_) {
    for (const sampler::OwnedFd fd : t.fds) {
      sampler::close_owned(fd);
    }
  }
  threads_.clear();
  retired_.assign(points_.size(), 0);
  reported_.assign(points_.size(), 0);
  // The child's one thread: the counts so far were its parent's.
  for (auto* counter : patched_) {
    if (counter != nullptr) counter->store(0, std::memory_order_relaxed);
  }
}

uint64_t BreakpointPoints::total(size_t place) const {
  if (patched_[place] != nullptr) return patched_[place]->load(std::memory_order_relaxed);
  uint64_t sum = retired_[place];
  for (const auto& t : threads_) sum += read_count(t.fds[place]);
  return sum;
}

void BreakpointPoints::sync() {
  std::lock_guard lock(mutex_);
  for (size_t p = 0; p < points_.size(); ++p) {
    const uint64_t now = total(p);
    if (now > reported_[p]) {
      points_[p]->visit(now - reported_[p]);
      reported_[p] = now;
    }
  }
}

}  // namespace cprof::causal
