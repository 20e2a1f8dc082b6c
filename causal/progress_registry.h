#pragma once
// Progress points: what the program counts as work done (docs/causal.md).
//
//   throughput point: a visit count ("one more request served").
//   latency point:    begin and end counts ("a request arrived", "... left"); the report
//                     turns arrivals, departures and the number in flight into a latency
//                     with Little's law. A latency point also keeps per-call durations
//                     (count, mean, min, max, stddev) when its caller measures them: the
//                     report shows those as timed regions.
//
// Coz's ABI: coz.h increments `counter->count` in the struct that `_coz_get_counter`
// returns ({size_t count; size_t backoff;}) with a relaxed atomic add. CozCounter has that
// layout, and ProgressPoint::coz_counter() hands out the right one for each Coz counter
// type, so programs built with coz.h count into these points unchanged.
//
// Signal-safety contract:
//   - ProgressPoint::visit(), begin(), end(), record_duration(), counts() and the
//     CozCounter increments are async-signal-safe and lock-free (relaxed atomics; a
//     duration takes a per-stripe try-lock and never waits: when every stripe is busy it
//     is dropped and counted). Hardware-breakpoint points count from a signal handler.
//   - ProgressRegistry::size(), at() and find() (by index) are async-signal-safe: points
//     are published once and never freed while the registry lives.
//   - ProgressRegistry::add(), find_or_add() and ProgressPoint::region() allocate or spin
//     and are for normal context only.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/running_stats.h"

namespace cprof::causal {

enum class ProgressKind : uint8_t { throughput = 0, latency = 1 };
// Where a point comes from: the project's header, Coz's coz.h, or --progress FILE:LINE
// counted with a hardware breakpoint.
enum class ProgressSource : uint8_t { api = 0, coz = 1, breakpoint = 2 };

// Coz's counter types (coz.h: COZ_COUNTER_TYPE_THROUGHPUT/BEGIN/END).
inline constexpr int kCozThroughput = 1;
inline constexpr int kCozBegin = 2;
inline constexpr int kCozEnd = 3;

// Binary-compatible with coz.h's coz_counter_t.
struct CozCounter {
  std::atomic<size_t> count{0};
  size_t backoff = 0;  // unused by coz.h's macros; kept for the layout
};
static_assert(sizeof(CozCounter) == 2 * sizeof(size_t));
static_assert(std::atomic<size_t>::is_always_lock_free);

// The running summary of a timed region's durations (ns).
using RegionStats = RunningStats;

struct ProgressCounts {
  uint64_t visits = 0;  // throughput visits
  uint64_t begin = 0;   // latency arrivals
  uint64_t end = 0;     // latency departures
};

class ProgressPoint {
 public:
  ProgressPoint(uint32_t id, std::string name, ProgressKind kind, ProgressSource source,
                std::string file = {}, uint32_t line = 0);
  ProgressPoint(const ProgressPoint&) = delete;
  ProgressPoint& operator=(const ProgressPoint&) = delete;

  uint32_t id() const { return id_; }
  const std::string& name() const { return name_; }
  ProgressKind kind() const { return static_cast<ProgressKind>(kind_.load(std::memory_order_relaxed)); }
  void make_latency() { kind_.store(static_cast<uint8_t>(ProgressKind::latency)); }
  ProgressSource source() const { return source_; }
  const std::string& file() const { return file_; }
  uint32_t line() const { return line_; }

  void visit(size_t n = 1) { visits_.count.fetch_add(n, std::memory_order_relaxed); }
  void begin() { begins_.count.fetch_add(1, std::memory_order_relaxed); }
  void end() { ends_.count.fetch_add(1, std::memory_order_relaxed); }
  // One call's duration, for the timed-region summary. Never blocks.
  void record_duration(uint64_t ns);

  // The counter coz.h increments for a Coz counter type; null for an unknown type.
  CozCounter* coz_counter(int coz_type);

  ProgressCounts counts() const;
  // Merged duration summary. Normal context: spins briefly on busy stripes.
  RegionStats region() const;
  uint64_t dropped_durations() const { return dropped_.load(std::memory_order_relaxed); }

  // In a forked child (only the forking thread exists): a stripe another thread of the
  // parent was updating stays marked busy forever, and region() would spin on it. Such a
  // stripe is released, its half-updated summary cleared.
  void after_fork_in_child();

 private:
  // Durations go to one of a few stripes, each behind a try-lock, so threads rarely
  // share one and a signal handler that interrupts an update moves to another stripe.
  static constexpr size_t kStripes = 8;
  struct alignas(64) Stripe {
    std::atomic<bool> busy{false};
    RegionStats stats;
  };

  uint32_t id_;
  std::string name_;
  std::atomic<uint8_t> kind_;
  ProgressSource source_;
  std::string file_;
  uint32_t line_;
  CozCounter visits_;
  CozCounter begins_;
  CozCounter ends_;
  mutable std::array<Stripe, kStripes> stripes_;
  std::atomic<uint64_t> dropped_{0};
};

// Every progress point of the process, by name. Points live as long as the registry.
class ProgressRegistry {
 public:
  static constexpr size_t kCapacity = 1024;

  ProgressRegistry();
  ~ProgressRegistry();
  ProgressRegistry(const ProgressRegistry&) = delete;
  ProgressRegistry& operator=(const ProgressRegistry&) = delete;

  // The point named `name`, created with these attributes if new (an existing point keeps
  // its own; a latency use of a throughput point makes it a latency point, as Coz's
  // begin/end counters share a name). Null when the registry is full. Normal context.
  ProgressPoint* find_or_add(const std::string& name, ProgressKind kind, ProgressSource source,
                             const std::string& file = {}, uint32_t line = 0);
  // Coz's _coz_get_counter(type, name): the counter for that type of the named point.
  CozCounter* coz_counter(int coz_type, const char* name);

  size_t size() const { return size_.load(std::memory_order_acquire); }
  ProgressPoint* at(size_t index) const {
    return points_[index].load(std::memory_order_acquire);
  }

  // Counts of every point, by index (lock-free; consistent per counter, not across).
  std::vector<ProgressCounts> counts() const;

  // Held across fork (the runtime's fork hooks): find_or_add changes the list under it,
  // so the child gets the list whole.
  void lock_for_fork() { mutex_.lock(); }
  void unlock_after_fork() { mutex_.unlock(); }
  // In a forked child: every point's stripes are released (ProgressPoint::after_fork_in_child).
  void after_fork_in_child();

 private:
  std::mutex mutex_;  // serializes additions; readers go lock-free through size_
  std::array<std::atomic<ProgressPoint*>, kCapacity> points_{};
  std::atomic<size_t> size_{0};
  std::vector<std::unique_ptr<ProgressPoint>> owned_;
};

}  // namespace cprof::causal
