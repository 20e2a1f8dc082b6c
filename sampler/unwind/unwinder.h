#pragma once
// Call-stack capture for the sampling signal handler.
//
// Frame convention (both unwinders): frames[0] is the interrupted PC, the exact
// instruction; frames[1..] are return addresses (a symbolizer looks them up at addr - 1).
// At most `max` frames are written; the return value is how many.
//
// Signal-safety contract:
//   - init_unwinding() / shutdown_unwinding() and the LibunwindUnwinder constructor and
//     destructor are NOT async-signal-safe: they allocate and create the libunwind address
//     space. Call them from a normal context before arming / after disarming the signals.
//   - unwind_with_libunwind(), unwind_with_frame_pointers(), unwind() and
//     LibunwindUnwinder::unwind() are async-signal-safe and re-entrant across threads:
//     no malloc, no dl_iterate_phdr, no stdio. Every memory read is checked first against
//     the thread's StackBounds or the ModuleTable snapshot, so a corrupt frame ends the
//     stack early instead of faulting. They may be called concurrently from any number of
//     threads. One caveat for libunwind, see docs/unwinding.md: the first unwind through a
//     PC not yet in the thread's libunwind cache takes libunwind's internal mempool mutex
//     (with all signals masked, so it cannot self-deadlock).
//   - parse_unwind_method() is a plain function (no signal-safety promise).

#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "sampler/unwind/module_table.h"
#include "sampler/unwind/stack_bounds.h"

namespace cprof::sampler {

enum class UnwindMethod {
  kLibunwind,      // DWARF CFI from .eh_frame: works on -O2 code without frame pointers
  kFramePointers,  // rbp chain: cheap, needs -fno-omit-frame-pointer everywhere
};

// "libunwind" (also "dwarf") or "fp". Returns nullopt for anything else.
std::optional<UnwindMethod> parse_unwind_method(std::string_view name) noexcept;
std::string_view to_string(UnwindMethod m) noexcept;

// Libunwind with a custom ("remote") address space whose accessors read only the current
// process, checked, and find unwind tables through a ModuleTable instead of
// dl_iterate_phdr. One instance serves all threads.
class LibunwindUnwinder {
 public:
  // `modules` must outlive this object. Not async-signal-safe.
  explicit LibunwindUnwinder(const ModuleTable& modules);
  ~LibunwindUnwinder();
  LibunwindUnwinder(const LibunwindUnwinder&) = delete;
  LibunwindUnwinder& operator=(const LibunwindUnwinder&) = delete;

  bool ok() const noexcept { return as_ != nullptr; }
  // Async-signal-safe. Returns 0 only if `uc` is null or `max` is 0.
  size_t unwind(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                size_t max) const noexcept;
  // Drops libunwind's cached unwind rules (all threads, lazily). unwind() does this by
  // itself when it sees a new ModuleTable generation. Async-signal-safe.
  void flush_cache() const noexcept;

 private:
  const ModuleTable& modules_;
  void* as_ = nullptr;  // unw_addr_space_t; void* keeps libunwind.h out of this header
  mutable std::atomic<uint64_t> seen_generation_{0};
};

// Process-wide default used by the free functions below. init_unwinding() creates the
// LibunwindUnwinder for `modules` (which must outlive it); returns false if libunwind
// could not create its address space. Not async-signal-safe.
bool init_unwinding(const ModuleTable& modules) noexcept;
void shutdown_unwinding() noexcept;

// Async-signal-safe. Returns only frames[0] (the PC) if init_unwinding() was not called.
size_t unwind_with_libunwind(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                             size_t max) noexcept;
// Async-signal-safe. Needs no initialization.
size_t unwind_with_frame_pointers(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                                  size_t max) noexcept;
// Async-signal-safe dispatch on `method`.
size_t unwind(UnwindMethod method, const ucontext_t* uc, StackBounds stack, uint64_t* frames,
              size_t max) noexcept;

}  // namespace cprof::sampler
