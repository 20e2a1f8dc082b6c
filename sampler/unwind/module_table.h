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

struct Module {
  std::string path;      // dlpi_name; the main program's is resolved from /proc/self/exe;
                         // the vDSO's is "[vdso]"
  std::string build_id;  // NT_GNU_BUILD_ID as lowercase hex; empty if none
  uint64_t load_bias = 0;           // dlpi_addr: run-time address = ELF vaddr + load_bias
  std::vector<AddressRange> code;   // executable PT_LOAD segments (run-time addresses)
  std::vector<AddressRange> mapped; // every PT_LOAD segment, widened to whole pages
  EhFrameHdr eh;
  // .eh_frame as unwind rows for the fast DWARF unwinder, parsed once per module when the
  // table first sees it (and shared by later snapshots); null if the module has no
  // usable .eh_frame_hdr table.
  std::shared_ptr<const CfiTable> cfi;
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
  std::vector<Module> modules_;
  std::vector<Entry> code_;    // sorted by start, non-overlapping
  std::vector<Entry> mapped_;  // sorted by start
};

class ModuleTable {
 public:
  ModuleTable();  // takes the first snapshot
  ~ModuleTable();
  ModuleTable(const ModuleTable&) = delete;
  ModuleTable& operator=(const ModuleTable&) = delete;

  // Re-reads the loaded modules and publishes a new snapshot; parses the .eh_frame of
  // each module not seen before (a CfiTable). Not async-signal-safe.
  void refresh();

  // The current snapshot (never null). Async-signal-safe.
  const ModuleSnapshot* snapshot() const noexcept {
    return current_.load(std::memory_order_acquire);
  }
  // Shorthand for snapshot()->find(pc). Async-signal-safe.
  const Module* find(uint64_t pc) const noexcept { return snapshot()->find(pc); }
  // For the writer thread: the modules of the current snapshot (valid until destruction;
  // a later refresh does not invalidate it).
  std::span<const Module> modules() const noexcept { return snapshot()->modules(); }

 private:
  std::atomic<const ModuleSnapshot*> current_{nullptr};
  std::mutex writer_mutex_;  // serializes refresh(); never taken in a handler
  // Every snapshot ever published, current one included. A handler may have loaded an
  // old pointer just before a refresh and still be walking it; without hazard pointers
  // or epochs we cannot know when it is done, so old snapshots are kept until the table
  // is destroyed. They are small (a few KiB) and refreshes happen only on dlopen/dlclose.
  std::vector<std::unique_ptr<ModuleSnapshot>> all_;
  uint64_t next_generation_ = 1;
  // Parsed .eh_frame tables of the modules in the current snapshot, by (path, build-id,
  // load bias), so a refresh parses only the modules it has not seen. Under writer_mutex_.
  std::vector<Module> cfi_cache_;
};

// Decodes the header of an .eh_frame_hdr section mapped at `hdr`. Returns false if the
// version or an encoding is unsupported. Reads memory: call only on a mapped section.
// Not async-signal-safe only because callers need not be; it does not allocate.
bool decode_eh_frame_hdr(uint64_t hdr, uint64_t size, EhFrameHdr* out) noexcept;

}  // namespace cprof::sampler
