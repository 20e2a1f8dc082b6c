#pragma once
// Call-stack capture for the sampling signal handler.
//
// Frame convention (all unwinders): frames[0] is the interrupted PC, the exact
// instruction; frames[1..] are return addresses (a symbolizer looks them up at addr - 1).
// At most `max` frames are written; the return value is how many.
//
// Signal-safety contract:
//   - init_unwinding() / shutdown_unwinding(), register_unwind_thread() /
//     unregister_unwind_thread() and the LibunwindUnwinder constructor, destructor,
//     attach_thread() and detach_thread() are NOT async-signal-safe: they allocate and
//     create libunwind address spaces. Call them from a normal context: init before arming
//     any signal, register on the thread itself before arming its timer, unregister on the
//     thread after disarming it, shutdown after disarming all.
//   - unwind_with_dwarf(), unwind_with_libunwind(), unwind_with_frame_pointers(), unwind()
//     and LibunwindUnwinder::unwind() are async-signal-safe and re-entrant across threads:
//     no malloc, no dl_iterate_phdr, no stdio. Every memory read is checked first against
//     the thread's StackBounds or the ModuleTable snapshot, so a corrupt frame ends the
//     stack early instead of faulting. They may be called concurrently from any number of
//     threads. Caveat for libunwind (docs/unwinding.md): libunwind itself takes internal
//     mutexes on every step (its unwind-rule cache) and on cache misses (its CIE mempool),
//     always with every signal masked, so a handler can never interrupt its own thread's
//     holder. Registered threads each get a private address space, so the cache mutex is
//     never shared; only the mempool mutex (cache misses) can be contended.
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
  kDwarf,          // the default: .eh_frame rows parsed ahead of time (cfi_unwinder.h);
                   // complex frames go to libunwind, so the frames are libunwind's
  kLibunwind,      // DWARF CFI from .eh_frame interpreted by libunwind at every step
  kFramePointers,  // rbp chain: cheap, needs -fno-omit-frame-pointer everywhere
};

// "dwarf", "libunwind" or "fp". Returns nullopt for anything else.
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
  const ModuleTable& modules() const noexcept { return modules_; }
  // Gives the calling thread its own libunwind address space (and rule cache), so its
  // unwinds never touch a lock another thread can hold. Threads that do not attach share
  // one address space. Not async-signal-safe; one unwinder per thread at a time.
  bool attach_thread() noexcept;
  void detach_thread() noexcept;
  // Async-signal-safe. Returns 0 only if `uc` is null or `max` is 0.
  size_t unwind(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                size_t max) const noexcept;
  // Drops libunwind's cached unwind rules (the shared cache and the calling thread's).
  // unwind() does this by itself when it sees a new ModuleTable generation.
  // Async-signal-safe.
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
// attach_thread()/detach_thread() of the process-wide unwinder, for the calling thread.
bool register_unwind_thread() noexcept;
void unregister_unwind_thread() noexcept;

// Around fork (the runtime's atfork handlers): libunwind's internal locks, taken inside
// handlers on other threads, must not be held when the process is copied, or the child
// inherits them held by threads it does not have and its first unwind that needs one
// hangs. pause_libunwind_for_fork() turns new handler unwinds away from libunwind (that
// sample keeps only the frames found without it) and waits for those inside to leave;
// resume_libunwind_after_fork() lets them in again, in the parent and in the child.
// Normal context.
void pause_libunwind_for_fork() noexcept;
void resume_libunwind_after_fork() noexcept;

// The process-wide unwinder, or null before init_unwinding(). Async-signal-safe.
const LibunwindUnwinder* default_unwinder() noexcept;

// The fast DWARF unwinder over the init_unwinding() table's CfiTables, with the
// process-wide LibunwindUnwinder as its fallback. Async-signal-safe. Returns only
// frames[0] (the PC) if init_unwinding() was not called.
size_t unwind_with_dwarf(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                         size_t max) noexcept;
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
