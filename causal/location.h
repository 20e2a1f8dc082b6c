#pragma once
// Code locations an experiment can speed up: a source line or a function, represented
// abstractly as an id, a name ("file:line" or the function's name) and the run-time
// address ranges its code occupies. Resolving names to ranges (DWARF, scope rules) is the
// symbolizer's job; this file only matches addresses.
//
// Signal-safety contract: LocationTable::find(), Location::contains(), stack_hits() and
// RecentLocations::note() and LocationTally::add() are async-signal-safe and lock-free
// (reads of data built before sampling starts or published by one atomic pointer, binary
// searches, atomics). Building a table, add(), attach(), detach(),
// RecentLocations::snapshot() and draw_by_count() are for normal context.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cprof::causal {

struct AddressRange {
  uint64_t start = 0;  // run-time address, inclusive
  uint64_t end = 0;    // exclusive
};

// A location named by lines: "FILE:LINE", or "FILE:FIRST-LAST", a block of lines taken as
// one location (--line). nullopt for anything else, a function's name: C++ names never end
// in ":<digits>", so "ns::f" stays a function. FIRST > LAST is returned as written, for
// the caller to refuse; the most lines a block may span is kMaxBlockLines.
struct LineSpan {
  std::string_view file;
  uint32_t first = 0, last = 0;
};
inline constexpr uint32_t kMaxBlockLines = 10000;
std::optional<LineSpan> parse_line_span(std::string_view name);

struct Location {
  uint32_t id = 0;
  std::string name;                  // "file:line" or a function name
  std::vector<AddressRange> ranges;  // sorted by start, disjoint (normalize())
  // Null for code loaded when the program started. For a library it loads later (dlopen):
  // the table's flag, set once the library is loaded and the ranges moved by its load
  // bias; until then (and after a dlclose) the location holds no address.
  const std::atomic<bool>* loaded = nullptr;

  // Sorts and merges the ranges. Call once after filling them.
  void normalize();
  bool contains(uint64_t address) const;
};

// frames[0] is the interrupted PC, frames[1..] return addresses (docs/results-format.md):
// a return address is matched at address - 1, inside its call instruction.
// True when any frame lies in the location.
bool stack_hits(const Location& location, std::span<const uint64_t> frames);

class LocationTable {
 public:
  LocationTable() = default;
  LocationTable(const LocationTable&) = delete;
  LocationTable& operator=(const LocationTable&) = delete;

  // Adds a location and returns its id (its index). Normal context, before sampling.
  uint32_t add(std::string name, std::vector<AddressRange> ranges);
  // Adds a location in a library the program has not loaded yet: `file_ranges` are the
  // library file's addresses, moved by attach(). Before finish().
  uint32_t add_unloaded(std::string name, std::vector<AddressRange> file_ranges);
  // Builds the address index. Call after the last add(), before any find().
  void finish();

  // A library loaded later: the location `id` (add_unloaded) holds code from now on, its
  // ranges moved by `bias`. False when it was attached before at another bias (a library
  // closed and loaded again elsewhere: its ranges are not rewritten while a handler may
  // read them). detach(): a dlclose; the location holds no address until attached again.
  // Neither takes effect in find() until publish(). Normal context, one caller at a time.
  bool attach(uint32_t id, uint64_t bias);
  void detach(uint32_t id);
  // Whether the location holds code now (always, for one loaded at start).
  bool is_loaded(uint32_t id) const;
  // Rebuilds the address index from the loaded locations and publishes it; a handler
  // still reading the one before keeps it (indexes are never freed while the table lives).
  void publish();

  size_t size() const { return locations_.size(); }
  const Location& at(uint32_t id) const { return locations_[id]; }
  // The location holding `address`, or null. Where locations overlap (a line inside a
  // function) the one added first wins.
  const Location* find(uint64_t address) const;
  // The first frame of the stack that lies in some location (the sampled in-scope
  // location Coz's automatic mode draws from), or null.
  const Location* first_in_stack(std::span<const uint64_t> frames) const;

 private:
  struct Entry {
    uint64_t start, end;
    uint32_t id;
  };
  static constexpr uint64_t kNotAttached = ~uint64_t{0};
  std::vector<Location> locations_;
  // Per location added with add_unloaded(): its flag (Location::loaded points here) and
  // the bias it was attached at (kNotAttached before the first attach).
  std::unique_ptr<std::atomic<bool>[]> loaded_;
  std::vector<uint64_t> attached_bias_;
  std::vector<std::unique_ptr<const std::vector<Entry>>> indexes_;  // every one published
  std::atomic<const std::vector<Entry>*> index_{nullptr};           // sorted by start, disjoint
};

// The last few in-scope locations the samples fell in, for automatic selection: a ring
// written from signal handlers, read by the controller. Drawing uniformly from it picks
// a location with probability close to its share of recent samples.
class RecentLocations {
 public:
  static constexpr size_t kSlots = 256;
  static constexpr uint32_t kEmpty = ~uint32_t{0};

  RecentLocations() { clear(); }

  void note(uint32_t location_id) {
    const uint64_t i = next_.fetch_add(1, std::memory_order_relaxed);
    slots_[i % kSlots].store(location_id, std::memory_order_relaxed);
  }
  // Ids currently in the ring (kEmpty slots skipped).
  std::vector<uint32_t> snapshot() const;
  uint64_t noted() const { return next_.load(std::memory_order_relaxed); }
  void clear();

 private:
  std::atomic<uint64_t> next_{0};
  std::array<std::atomic<uint32_t>, kSlots> slots_;
};

// In-scope samples per location over a whole run: end-to-end automatic selection draws
// the run pair's location from them (docs/causal.md, "End to end"). Sized before sampling
// starts; add() from signal handlers.
class LocationTally {
 public:
  explicit LocationTally(size_t locations)
      : counts_(std::make_unique<std::atomic<uint32_t>[]>(locations)), size_(locations) {}
  void add(uint32_t id) {
    if (id < size_) counts_[id].fetch_add(1, std::memory_order_relaxed);
  }
  size_t size() const { return size_; }
  uint32_t count(uint32_t id) const {
    return id < size_ ? counts_[id].load(std::memory_order_relaxed) : 0;
  }
  std::vector<uint64_t> counts() const;

 private:
  std::unique_ptr<std::atomic<uint32_t>[]> counts_;
  size_t size_;
};

// An index drawn with probability proportional to its count, from `seed` (the same seed
// and counts give the same index); nullopt when every count is 0.
std::optional<uint32_t> draw_by_count(std::span<const uint64_t> counts, uint64_t seed);

}  // namespace cprof::causal
