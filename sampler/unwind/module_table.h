#pragma once
// ModuleTable: a lock-free-readable snapshot of the ELF modules loaded in this process.
//
// The snapshot is built outside signal context with dl_iterate_phdr and published through
// an atomic pointer; a signal handler reads it without locks, malloc or the loader lock.
//
// Signal-safety contract:
//   - refresh(), modules(), the constructor and the destructor are NOT async-signal-safe.
//     refresh() allocates and calls dl_iterate_phdr (which takes the loader lock). The
//     runtime calls it at start and after every dlopen/dlclose, from a normal context.
//     Concurrent refresh() calls are serialized internally.
//   - snapshot(), find(), and every const member of ModuleSnapshot are async-signal-safe,
//     re-entrant and lock-free. A pointer returned by snapshot() stays valid until the
//     ModuleTable is destroyed (old snapshots are retired, never freed early).
//   - The destructor frees every snapshot: no handler may be running or start afterwards.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "sampler/unwind/cfi_policy.h"
#include "sampler/unwind/loader_walk.h"

namespace cprof::sampler {

class CfiTable;  // cfi_table.h

// Where a module's .eh_frame_hdr binary-search table lives, at run-time addresses.
struct EhFrameHdr {
  uint64_t hdr = 0;        // address of .eh_frame_hdr (PT_GNU_EH_FRAME); 0 if none
  uint64_t hdr_size = 0;   // p_memsz of PT_GNU_EH_FRAME
  uint64_t eh_frame = 0;   // decoded eh_frame_ptr: address of .eh_frame
  uint64_t table = 0;      // address of the sorted (initial_loc, fde) table; 0 if unusable
  uint64_t fde_count = 0;  // entries in the table
};

struct AddressRange {
  uint64_t start = 0;  // inclusive
  uint64_t end = 0;    // exclusive
  bool contains(uint64_t a) const noexcept { return a >= start && a < end; }
};

// A module's CfiTable, attached to a published snapshot at most once: when the snapshot is
// built (eager tables, or one parsed before for the same module) or later by
// ModuleTable::build_wanted_tables(). The ModuleTable owns every table until it is
// destroyed. get() and want() are async-signal-safe.
class ModuleCfi {
 public:
  ModuleCfi() = default;
  // Copies the table only: the rent counted on a snapshot's module is folded into the
  // ModuleTable's own record of it (build_wanted_tables, refresh).
  ModuleCfi(const ModuleCfi& other) noexcept : table_(other.get()) {}
  ModuleCfi& operator=(const ModuleCfi& other) noexcept {
    table_.store(other.get(), std::memory_order_release);
    return *this;
  }
  ~ModuleCfi() = default;

  // The table, or null: not built yet, or the module has no usable .eh_frame_hdr.
  const CfiTable* get() const noexcept { return table_.load(std::memory_order_acquire); }
  // A walk needed the table, found none and handed `frames` frames to libunwind (0: no
  // fallback): the rent build_wanted_tables() weighs against parsing (cfi_policy.h).
  // Two relaxed atomic adds: no lock, no system call.
  void want(size_t frames) const noexcept {
    handoffs_.fetch_add(1, std::memory_order_relaxed);
    frames_.fetch_add(frames, std::memory_order_relaxed);
  }

 private:
  friend class ModuleTable;
  static_assert(std::atomic<uint64_t>::is_always_lock_free);  // want() runs in handlers
  mutable std::atomic<const CfiTable*> table_{nullptr};
  mutable std::atomic<uint64_t> handoffs_{0};
  mutable std::atomic<uint64_t> frames_{0};
};

// When a ModuleTable parses a module's .eh_frame:
//   eager          as soon as it learns the module (gpu::LaunchStacks, most tests);
//   on_demand      once the walks that found no table there have cost more than parsing
//                  it would (ski rental, cfi_policy.h): the sampling runtime's, so that a
//                  short-lived process (a compiler pass) never pays for a table it barely
//                  uses (cc1's takes ~40 ms, more than its whole run), and a long-lived
//                  one gets the tables of the modules its samples keep entering;
//   on_first_want  at the first build_wanted_tables() after any walk asked for it (the
//                  tests of the on-demand mechanics; the behaviour before rent-or-buy).
enum class CfiTables { eager, on_demand, on_first_want };

struct Module {
  std::string path;      // dlpi_name; the main program's is resolved from /proc/self/exe;
                         // the vDSO's is "[vdso]"
  std::string build_id;  // NT_GNU_BUILD_ID as lowercase hex; empty if none
  uint64_t load_bias = 0;           // dlpi_addr: run-time address = ELF vaddr + load_bias
  std::vector<AddressRange> code;   // executable PT_LOAD segments (run-time addresses)
  std::vector<AddressRange> mapped; // every PT_LOAD segment, widened to whole pages
  EhFrameHdr eh;
  // .eh_frame as unwind rows for the fast DWARF unwinder, parsed once per module (and
  // shared by later snapshots) when the table learns it or once walks have paid for it.
  ModuleCfi cfi;
};

// One immutable view of the loaded modules. Built by ModuleTable::refresh.
class ModuleSnapshot {
 public:
  // Increases by one with every refresh. Async-signal-safe.
  uint64_t generation() const noexcept { return generation_; }
  std::span<const Module> modules() const noexcept { return modules_; }
  // The module whose executable segment holds `pc`, or nullptr. Binary search;
  // async-signal-safe.
  const Module* find(uint64_t pc) const noexcept;
  // True if [addr, addr + len) lies in one PT_LOAD segment (page-rounded) of some module,
  // i.e. it is mapped and readable. Async-signal-safe.
  bool is_mapped(uint64_t addr, uint64_t len) const noexcept;

 private:
  friend class ModuleTable;
  struct Entry {
    AddressRange range;
    uint32_t module;
  };
  uint64_t generation_ = 0;
  LoaderCounts loader_;  // read before the walk: the snapshot saw at least these changes
  std::vector<Module> modules_;
  std::vector<Entry> code_;    // sorted by start, non-overlapping
  std::vector<Entry> mapped_;  // sorted by start
};

class ModuleTable {
 public:
  explicit ModuleTable(CfiTables tables = CfiTables::eager);  // takes the first snapshot
  ~ModuleTable();
  ModuleTable(const ModuleTable&) = delete;
  ModuleTable& operator=(const ModuleTable&) = delete;

  // Re-reads the loaded modules and publishes a new snapshot; attaches the CfiTables
  // already parsed, and (eager) parses the .eh_frame of each module not seen before.
  // Not async-signal-safe.
  void refresh() { refresh(loader_counts()); }
  // refresh() if the loader has loaded or unloaded an object since the current snapshot
  // was taken (loader_counts()); true if it did. A program that dlopens what it already
  // has, however often, costs one short walk each time and no memory.
  bool refresh_if_loader_changed();
  // Parses and attaches the tables walks asked for (ModuleCfi::want) that the policy says
  // to build now (on_demand: the rent has reached the price; on_first_want: any). Returns
  // how many it parsed. A module unloaded since the current snapshot is skipped, not read
  // (the writer thread calls this while the program may dlclose). Not async-signal-safe.
  size_t build_wanted_tables();
  // What the walks without `m`'s table have cost so far. For tests. Not
  // async-signal-safe.
  CfiRent rent(const Module& m);

  // The current snapshot (never null). Async-signal-safe.
  const ModuleSnapshot* snapshot() const noexcept {
    return current_.load(std::memory_order_acquire);
  }
  // Held across fork (the runtime's atfork handlers): a child must not inherit the lock
  // held by a thread it does not have (the writer parsing a table, a dlopen refreshing),
  // nor a table half parsed. Its holders take no other lock but the loader-walk lock
  // (loader_walk.h), which fork takes after it.
  void lock_for_fork() { writer_mutex_.lock(); }
  void unlock_after_fork() { writer_mutex_.unlock(); }
  // Shorthand for snapshot()->find(pc). Async-signal-safe.
  const Module* find(uint64_t pc) const noexcept { return snapshot()->find(pc); }
  // For the writer thread: the modules of the current snapshot (valid until destruction;
  // a later refresh does not invalidate it).
  std::span<const Module> modules() const noexcept { return snapshot()->modules(); }

 private:
  // refresh(), with the loader's counts already read before the walk.
  void refresh(LoaderCounts loader);
  std::atomic<const ModuleSnapshot*> current_{nullptr};
  std::mutex writer_mutex_;  // serializes refresh(); never taken in a handler
  // Every snapshot ever published, current one included. A handler may have loaded an
  // old pointer just before a refresh and still be walking it; without hazard pointers
  // or epochs we cannot know when it is done, so old snapshots are kept until the table
  // is destroyed. They are small (a few KiB) and refreshes happen only when a dlopen or
  // dlclose changed the loaded objects (refresh_if_loader_changed).
  std::vector<std::unique_ptr<ModuleSnapshot>> all_;
  uint64_t next_generation_ = 1;
  CfiTables tables_mode_;
  // The .eh_frame of one module at one address: parsed (table may still be null: no usable
  // .eh_frame_hdr) or not yet.
  struct ParsedCfi {
    std::string path;
    std::string build_id;
    uint64_t load_bias = 0;
    uint64_t eh_frame_hdr = 0;
    bool parsed = false;
    std::shared_ptr<const CfiTable> table;
    CfiRent rent;               // hand-offs so far, folded from the snapshots' counters
    uint64_t eh_frame_bytes = 0;  // the price's size, measured when first needed
    bool sized = false;
  };
  // Every module seen, so a module is parsed once whatever the refreshes; the tables of
  // unloaded modules stay for the old snapshots that point to them. Under writer_mutex_.
  std::vector<ParsedCfi> parsed_;
  ParsedCfi& parsed_entry_locked(const Module& m);
  // Parses `m`'s table if it was not, and attaches it to `m`. Under writer_mutex_.
  bool attach_locked(const Module& m, bool parse);
  // Moves the hand-offs counted on `m` since the last call into its ParsedCfi; returns it,
  // or null if there were none. Under writer_mutex_.
  ParsedCfi* fold_rent_locked(const Module& m);
};

// Decodes the header of an .eh_frame_hdr section mapped at `hdr`. Returns false if the
// version or an encoding is unsupported. Reads memory: call only on a mapped section.
// Not async-signal-safe only because callers need not be; it does not allocate.
bool decode_eh_frame_hdr(uint64_t hdr, uint64_t size, EhFrameHdr* out) noexcept;

}  // namespace cprof::sampler
