#include "gpu/common/launch_stack.h"

#include <pthread.h>
#include <ucontext.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <cstddef>

#include "gpu/common/results_file.h"
#include "sampler/unwind/loader_walk.h"
#include "sampler/unwind/stack_bounds.h"
#include "sampler/unwind/unwinder.h"

// glibc's getcontext() saves the signal mask with a system call; unwinding needs only the
// stack pointer, the return address and the callee-saved registers. This saves those as
// they are in the caller right after the call returns. Offsets are checked below.
extern "C" void cprof_gpu_light_getcontext(ucontext_t* uc);
asm(R"(
    .text
    .p2align 4
    .globl cprof_gpu_light_getcontext
    .hidden cprof_gpu_light_getcontext
    .type cprof_gpu_light_getcontext, @function
cprof_gpu_light_getcontext:
    .cfi_startproc
    movq %r12, 72(%rdi)
    movq %r13, 80(%rdi)
    movq %r14, 88(%rdi)
    movq %r15, 96(%rdi)
    movq %rbp, 120(%rdi)
    movq %rbx, 128(%rdi)
    leaq 8(%rsp), %rax
    movq %rax, 160(%rdi)
    movq (%rsp), %rax
    movq %rax, 168(%rdi)
    ret
    .cfi_endproc
    .size cprof_gpu_light_getcontext, .-cprof_gpu_light_getcontext
)");

namespace cprof::gpu {
namespace {

constexpr size_t greg(int reg) {
  return offsetof(ucontext_t, uc_mcontext) + offsetof(mcontext_t, gregs) +
         static_cast<size_t>(reg) * sizeof(greg_t);
}
static_assert(greg(REG_R12) == 72 && greg(REG_R13) == 80 && greg(REG_R14) == 88 &&
              greg(REG_R15) == 96 && greg(REG_RBP) == 120 && greg(REG_RBX) == 128 &&
              greg(REG_RSP) == 160 && greg(REG_RIP) == 168,
              "ucontext_t layout differs from the one cprof_gpu_light_getcontext assumes");

constexpr size_t kSelfFramesMax = 16;  // the hooks never nest deeper than this

// Per submitting thread: its stack bounds and its own libunwind address space for the
// frames the CfiTables hand over (an unregistered thread shares one whose rule cache takes
// a lock and two sigprocmask calls per frame, docs/unwinding.md), released when the
// thread ends.
struct ThreadUnwind {
  sampler::StackBounds bounds;
  bool registered = false;
  ThreadUnwind() : bounds(sampler::current_thread_stack_bounds()),
                   registered(sampler::register_unwind_thread()) {}
  ~ThreadUnwind() {
    if (registered) sampler::unregister_unwind_thread();
  }
  ThreadUnwind(const ThreadUnwind&) = delete;
  ThreadUnwind& operator=(const ThreadUnwind&) = delete;
};

// Around fork, as the sampler runtime does for its own copy (docs/sampler.md, "fork"):
// this library's unwinder is a second copy of sampler/unwind with its own fork gate, but
// libunwind itself is loaded once per process. A child must not inherit libunwind's
// internal locks, or this table's writer lock, held by a launching thread it does not
// have: the child's first unwind needing one (the sampler's included) would hang. Nor
// the loader's lock, held by one of this copy's walks (loader_walk.h).
std::atomic<LaunchStacks*> g_forking_stacks{nullptr};

void prepare_fork() {
  if (LaunchStacks* s = g_forking_stacks.load(std::memory_order_acquire)) {
    s->modules().lock_for_fork();
    sampler::hold_loader_walks();
    sampler::pause_libunwind_for_fork();
  }
}

void release_after_fork() {
  if (LaunchStacks* s = g_forking_stacks.load(std::memory_order_acquire)) {
    sampler::resume_libunwind_after_fork();
    sampler::release_loader_walks();
    s->modules().unlock_after_fork();
  }
}

}  // namespace

LaunchStacks::LaunchStacks(size_t max_depth, bool enabled)
    : max_depth_(std::clamp<size_t>(max_depth, 1, 1024)), enabled_(enabled) {
  if (!enabled_) return;
  unwinder_ok_ = sampler::init_unwinding(modules_);
  if (unwinder_ok_) {
    static const bool registered =
        pthread_atfork(prepare_fork, release_after_fork, release_after_fork) == 0;
    (void)registered;
    g_forking_stacks.store(this, std::memory_order_release);
  }
  if (const sampler::Module* self =
          modules_.find(reinterpret_cast<uint64_t>(&cprof_gpu_light_getcontext))) {
    self_lo_ = ~uint64_t{0};
    for (const auto& r : self->code) {
      self_lo_ = std::min(self_lo_, r.start);
      self_hi_ = std::max(self_hi_, r.end);
    }
  }
}

LaunchStacks::~LaunchStacks() {
  LaunchStacks* self = this;
  g_forking_stacks.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);
  if (unwinder_ok_) sampler::shutdown_unwinding();
}

__attribute__((noinline)) size_t LaunchStacks::capture(uint64_t* frames) noexcept {
  if (!enabled_ || !unwinder_ok_) return 0;
  thread_local ThreadUnwind t_unwind;
  uint64_t buf[1024 + kSelfFramesMax];
  const size_t want = max_depth_ + kSelfFramesMax;
  ucontext_t uc;
  std::fill(std::begin(uc.uc_mcontext.gregs), std::end(uc.uc_mcontext.gregs), greg_t{0});
  cprof_gpu_light_getcontext(&uc);
  // The fast DWARF walk over the ModuleTable's CfiTables (parsed once per module, when
  // the table learns it); frames it does not model go to libunwind (cfi_unwinder.h).
  size_t n = sampler::unwind_with_dwarf(&uc, t_unwind.bounds, buf, want);
  // A stack that ends in an unknown module ran into a library loaded since the table
  // was last refreshed: refresh (we are in a normal context) and unwind again.
  if (n > 0 && n < want && modules_.find(buf[n - 1]) == nullptr) {
    if (modules_.refresh_if_loader_changed()) {
      cprof_gpu_light_getcontext(&uc);
      n = sampler::unwind_with_dwarf(&uc, t_unwind.bounds, buf, want);
    }
  }
  size_t skip = 0;
  while (skip < n && skip < kSelfFramesMax && buf[skip] >= self_lo_ && buf[skip] < self_hi_) {
    ++skip;
  }
  const size_t count = std::min(n - skip, max_depth_);
  std::copy(buf + skip, buf + skip + count, frames);
  return count;
}

}  // namespace cprof::gpu
