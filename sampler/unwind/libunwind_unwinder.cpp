// DWARF unwinding with libunwind's *remote* (generic) library, used on our own process.
//
// Why remote: the local-only libunwind (libunwind.so, _UL* symbols) finds unwind tables
// with dl_iterate_phdr, which takes the loader lock (deadlock when the signal lands inside
// dlopen) and can allocate. Its unw_create_addr_space() returns NULL and unw_init_remote()
// returns -UNW_EINVAL in that build (#ifdef UNW_LOCAL_ONLY), so custom accessors are only
// possible with libunwind-x86_64 (_Ux86_64_* symbols), the build perf uses. Our accessors
// read this process's memory directly after a bounds check, and find_proc_info searches
// the ModuleTable's .eh_frame_hdr table.
// The library is loaded privately (libunwind_api.h says why), so every call goes through
// the function table.
#include <sched.h>

#include <atomic>
#include <cstring>

#include "sampler/unwind/libunwind_api.h"
#include "sampler/unwind/stack_read.h"
#include "sampler/unwind/unwinder.h"

namespace cprof::sampler {
namespace {

// Everything the accessors need for one unwind; lives on the handler's stack.
struct UnwindArg {
  const ucontext_t* uc;
  StackBounds stack;  // live part only: [sp - red zone, stack top)
  const ModuleSnapshot* modules;
};

int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t* pi,
                   int need_unwind_info, void* argp) {
  auto* arg = static_cast<UnwindArg*>(argp);
  const Module* m = arg->modules->find(ip);
  if (m == nullptr || m->eh.table == 0 || m->eh.fde_count == 0) return -UNW_ENOINFO;
  unw_dyn_info_t di;
  std::memset(&di, 0, sizeof di);
  di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
  di.start_ip = m->code.front().start;
  di.end_ip = m->code.back().end;
  // Table entries are (initial_loc, fde) pairs of sdata4, relative to .eh_frame_hdr.
  di.u.rti.segbase = m->eh.hdr;
  di.u.rti.table_data = m->eh.table;
  di.u.rti.table_len = m->eh.fde_count * 8 / sizeof(unw_word_t);
  return libunwind_api().dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, argp);
}

// libunwind frees UNW_INFO_FORMAT_TABLE info itself; we hand out nothing else.
void put_unwind_info(unw_addr_space_t, unw_proc_info_t*, void*) {}

// No dynamically registered (JIT) unwind info: returning an error makes libunwind skip it
// without allocating.
int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t*, void*) { return -UNW_ENOINFO; }

int access_mem(unw_addr_space_t, unw_word_t addr, unw_word_t* val, int write, void* argp) {
  if (write) return -UNW_EINVAL;
  auto* arg = static_cast<UnwindArg*>(argp);
  if (!arg->stack.contains(addr, sizeof *val) && !arg->modules->is_mapped(addr, sizeof *val))
    return -UNW_EINVAL;
  *val = load_word(addr);  // stack_read.h: maybe another frame's red zone
  return 0;
}

int access_reg(unw_addr_space_t, unw_regnum_t reg, unw_word_t* val, int write, void* argp) {
  if (write) return -UNW_EINVAL;
  const auto& g = static_cast<UnwindArg*>(argp)->uc->uc_mcontext.gregs;
  int index;
  switch (reg) {
    case UNW_X86_64_RAX: index = REG_RAX; break;
    case UNW_X86_64_RDX: index = REG_RDX; break;
    case UNW_X86_64_RCX: index = REG_RCX; break;
    case UNW_X86_64_RBX: index = REG_RBX; break;
    case UNW_X86_64_RSI: index = REG_RSI; break;
    case UNW_X86_64_RDI: index = REG_RDI; break;
    case UNW_X86_64_RBP: index = REG_RBP; break;
    case UNW_X86_64_RSP: index = REG_RSP; break;
    case UNW_X86_64_R8: index = REG_R8; break;
    case UNW_X86_64_R9: index = REG_R9; break;
    case UNW_X86_64_R10: index = REG_R10; break;
    case UNW_X86_64_R11: index = REG_R11; break;
    case UNW_X86_64_R12: index = REG_R12; break;
    case UNW_X86_64_R13: index = REG_R13; break;
    case UNW_X86_64_R14: index = REG_R14; break;
    case UNW_X86_64_R15: index = REG_R15; break;
    case UNW_X86_64_RIP: index = REG_RIP; break;
    default: return -UNW_EBADREG;
  }
  *val = static_cast<unw_word_t>(g[index]);
  return 0;
}

int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) {
  return -UNW_EBADREG;
}

int resume(unw_addr_space_t, unw_cursor_t*, void*) { return -UNW_EINVAL; }

int get_proc_name(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) {
  return -UNW_ENOINFO;  // names come later, from the symbolizer
}

unw_accessors_t g_accessors = {find_proc_info, put_unwind_info, get_dyn_info_list_addr,
                               access_mem,     access_reg,      access_fpreg,
                               resume,         get_proc_name};

// The process-wide instance behind unwind_with_libunwind(). Written only by
// init/shutdown (outside handlers); read with acquire in handlers.
std::atomic<LibunwindUnwinder*> g_default{nullptr};

// A thread's private address space. Why per thread: Debian's libunwind 1.6.2 is built
// without per-thread caches (unw_set_caching_policy maps UNW_CACHE_PER_THREAD to
// UNW_CACHE_GLOBAL), and the global cache takes the address space's mutex on every
// unw_step. One address space per thread makes that mutex private to the thread.
// initial-exec: plain TLS read in the handler, no __tls_get_addr (which may allocate);
// fine for a library loaded at startup (LD_PRELOAD), which is how the runtime is loaded.
struct ThreadState {
  const LibunwindUnwinder* owner;
  unw_addr_space_t as;
  uint64_t seen_generation;
  bool busy;  // an unwind on this thread's address space is in progress
};
__attribute__((tls_model("initial-exec"))) thread_local ThreadState t_state = {};

unw_addr_space_t create_address_space() {
  unw_addr_space_t as = libunwind_api().create_addr_space(&g_accessors, 0);
  // UNW_CACHE_GLOBAL: cache unwind rules per PC (UNW_CACHE_NONE re-parses the FDE on every
  // step, allocating from libunwind's mempool under its global mutex, ~3x slower).
  if (as != nullptr) libunwind_api().set_caching_policy(as, UNW_CACHE_GLOBAL);
  return as;
}

// For an address space only one thread ever uses: make its rule cache lock-free.
//
// libunwind 1.6.2 as Debian builds it has no TLS cache, and
//   - UNW_CACHE_GLOBAL: every unw_step takes the address space's mutex between two
//     sigprocmask() calls (~0.3 us per frame, 3 of them syscalls);
//   - UNW_CACHE_PER_THREAD: unw_set_caching_policy() silently turns it into GLOBAL, but
//     dwarf_find_save_locs() with the policy field == PER_THREAD uses the address space's
//     own cache *without* the lock (the TLS cache is compiled out).
// Our per-thread address space is used by one thread, never re-entered (ThreadState::busy),
// so the lock protects nothing. unw_set_caching_policy() cannot set PER_THREAD, so we
// write the field. It is the int right after `struct unw_accessors acc` (the public
// unw_accessors_t) in struct unw_addr_space; we only write it after checking that
// unw_get_accessors() returns the address space itself and that the field tracks
// unw_set_caching_policy(). If either check fails the address space stays GLOBAL: correct,
// just slower.
void make_private_cache_lockless(unw_addr_space_t as) {
  if (reinterpret_cast<void*>(libunwind_api().get_accessors(as)) != reinterpret_cast<void*>(as)) return;
  auto* policy = reinterpret_cast<unw_caching_policy_t*>(reinterpret_cast<char*>(as) +
                                                         sizeof(unw_accessors_t));
  libunwind_api().set_caching_policy(as, UNW_CACHE_NONE);
  const bool tracks_none = *policy == UNW_CACHE_NONE;
  libunwind_api().set_caching_policy(as, UNW_CACHE_GLOBAL);
  const bool tracks_global = *policy == UNW_CACHE_GLOBAL;
  if (tracks_none && tracks_global) *policy = UNW_CACHE_PER_THREAD;
}

// Drops a cache whose rules may describe a module that was unloaded (and something else
// loaded at its addresses). Bumps a generation; no allocation, no lock.
void flush_if_stale(unw_addr_space_t as, uint64_t* seen, uint64_t generation) {
  if (*seen != generation) {
    libunwind_api().flush_cache(as, 0, 0);
    *seen = generation;
  }
}

}  // namespace

LibunwindUnwinder::LibunwindUnwinder(const ModuleTable& modules) : modules_(modules) {
  if (!load_libunwind()) return;  // ok() stays false: the caller falls back to frame pointers
  as_ = create_address_space();
  seen_generation_.store(modules_.snapshot()->generation(), std::memory_order_relaxed);
}

LibunwindUnwinder::~LibunwindUnwinder() {
  if (t_state.owner == this) detach_thread();
  if (as_ != nullptr) libunwind_api().destroy_addr_space(static_cast<unw_addr_space_t>(as_));
}

bool LibunwindUnwinder::attach_thread() noexcept {
  if (t_state.owner == this) return true;
  if (t_state.owner != nullptr) return false;
  unw_addr_space_t as = create_address_space();
  if (as == nullptr) return false;
  make_private_cache_lockless(as);
  // A signal may arrive between any two stores: set `owner` last, once the rest is valid.
  t_state.as = as;
  t_state.seen_generation = modules_.snapshot()->generation();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_state.owner = this;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return true;
}

void LibunwindUnwinder::detach_thread() noexcept {
  if (t_state.owner != this) return;
  unw_addr_space_t as = t_state.as;
  t_state.owner = nullptr;  // a handler from here on uses the shared address space
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_state.as = nullptr;
  libunwind_api().destroy_addr_space(as);
}

void LibunwindUnwinder::flush_cache() const noexcept {
  // Bumps the address space's cache generation; each thread's cache is cleared on its
  // next use. No allocation, no lock.
  if (as_ != nullptr) libunwind_api().flush_cache(static_cast<unw_addr_space_t>(as_), 0, 0);
  if (t_state.owner == this) libunwind_api().flush_cache(t_state.as, 0, 0);
}

namespace {

// The fork gate (unwinder.h): handlers inside libunwind now, and whether a fork waits for
// them to leave. Sequentially consistent on both sides (a Dekker pair): a handler that
// counted itself in after the fork raised the flag sees it and leaves at once.
std::atomic<unsigned> g_inside_libunwind{0};
std::atomic<bool> g_fork_pending{false};

bool enter_libunwind() noexcept {
  g_inside_libunwind.fetch_add(1);
  if (!g_fork_pending.load()) return true;
  g_inside_libunwind.fetch_sub(1);
  return false;
}

void leave_libunwind() noexcept { g_inside_libunwind.fetch_sub(1); }

}  // namespace

void pause_libunwind_for_fork() noexcept {
  g_fork_pending.store(true);
  while (g_inside_libunwind.load() != 0) sched_yield();  // a handler's walk: microseconds
}

void resume_libunwind_after_fork() noexcept { g_fork_pending.store(false); }

size_t LibunwindUnwinder::unwind(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                                 size_t max) const noexcept {
  if (uc == nullptr || max == 0) return 0;
  const auto& g = uc->uc_mcontext.gregs;
  frames[0] = static_cast<uint64_t>(g[REG_RIP]);
  if (as_ == nullptr || max == 1) return 1;

  UnwindArg arg{uc, stack.live_part(static_cast<uint64_t>(g[REG_RSP])), modules_.snapshot()};
  const uint64_t gen = arg.modules->generation();
  unw_addr_space_t as;
  if (t_state.owner == this) {
    // A nested sampling signal on this thread (the runtime's sa_mask should prevent it)
    // must not share the lock-free cache with the unwind it interrupted.
    if (t_state.busy) return 1;
    t_state.busy = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    as = t_state.as;
    flush_if_stale(as, &t_state.seen_generation, gen);
  } else {
    as = static_cast<unw_addr_space_t>(as_);
    // Shared by unattached threads: racing handlers may both flush, which is harmless.
    uint64_t seen = seen_generation_.load(std::memory_order_relaxed);
    flush_if_stale(as, &seen, gen);
    seen_generation_.store(seen, std::memory_order_relaxed);
  }

  unw_cursor_t cursor;
  // init_remote starts from the registers in the ucontext: frame 0 is the interrupted
  // instruction and libunwind looks up its CFI at the PC itself, not PC - 1 (it does the
  // "- 1" only for frames it reached by a return address).
  size_t n = 1;
  if (enter_libunwind()) {
    if (libunwind_api().init_remote(&cursor, as, &arg) >= 0) {
      while (n < max) {
        // unw_step returns > 0 for a new frame, 0 at the outermost frame (CFI marks rip
        // as undefined, e.g. _start / clone), < 0 on error (no CFI, unreadable memory).
        if (libunwind_api().step(&cursor) <= 0) break;
        unw_word_t ip = 0;
        if (libunwind_api().get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
        frames[n++] = ip;
      }
    }
    leave_libunwind();
  }
  if (t_state.owner == this) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    t_state.busy = false;
  }
  return n;
}

bool init_unwinding(const ModuleTable& modules) noexcept {
  auto* u = new (std::nothrow) LibunwindUnwinder(modules);
  if (u == nullptr) return false;
  if (!u->ok()) {
    delete u;
    return false;
  }
  delete g_default.exchange(u, std::memory_order_acq_rel);
  return true;
}

void shutdown_unwinding() noexcept {
  delete g_default.exchange(nullptr, std::memory_order_acq_rel);
}

bool register_unwind_thread() noexcept {
  LibunwindUnwinder* u = g_default.load(std::memory_order_acquire);
  return u != nullptr && u->attach_thread();
}

void unregister_unwind_thread() noexcept {
  if (LibunwindUnwinder* u = g_default.load(std::memory_order_acquire)) u->detach_thread();
}

size_t unwind_with_libunwind(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                             size_t max) noexcept {
  const LibunwindUnwinder* u = g_default.load(std::memory_order_acquire);
  if (u != nullptr) return u->unwind(uc, stack, frames, max);
  if (uc == nullptr || max == 0) return 0;
  frames[0] = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
  return 1;
}

const LibunwindUnwinder* default_unwinder() noexcept {
  return g_default.load(std::memory_order_acquire);
}

size_t unwind(UnwindMethod method, const ucontext_t* uc, StackBounds stack, uint64_t* frames,
              size_t max) noexcept {
  switch (method) {
    case UnwindMethod::kFramePointers: return unwind_with_frame_pointers(uc, stack, frames, max);
    case UnwindMethod::kLibunwind: return unwind_with_libunwind(uc, stack, frames, max);
    case UnwindMethod::kDwarf: break;
  }
  return unwind_with_dwarf(uc, stack, frames, max);
}

std::optional<UnwindMethod> parse_unwind_method(std::string_view name) noexcept {
  if (name == "dwarf") return UnwindMethod::kDwarf;
  if (name == "libunwind") return UnwindMethod::kLibunwind;
  if (name == "fp") return UnwindMethod::kFramePointers;
  return std::nullopt;
}

std::string_view to_string(UnwindMethod m) noexcept {
  switch (m) {
    case UnwindMethod::kFramePointers: return "fp";
    case UnwindMethod::kLibunwind: return "libunwind";
    case UnwindMethod::kDwarf: break;
  }
  return "dwarf";
}

}  // namespace cprof::sampler
