#include "sampler/unwind/stack_read.h"
#include "sampler/unwind/unwinder.h"

namespace cprof::sampler {

size_t unwind_with_frame_pointers(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                                  size_t max) noexcept {
  if (uc == nullptr || max == 0) return 0;
  const auto& g = uc->uc_mcontext.gregs;
  size_t n = 0;
  frames[n++] = static_cast<uint64_t>(g[REG_RIP]);
  // Frames live above the interrupted stack pointer; reading below it is never needed.
  const StackBounds live = stack.live_part(static_cast<uint64_t>(g[REG_RSP]));
  uint64_t fp = static_cast<uint64_t>(g[REG_RBP]);
  // Limitation: if the PC is in a prologue/epilogue (before `mov %rsp,%rbp` or after
  // `pop %rbp`), rbp is still the caller's frame and the caller's caller comes next: one
  // frame is missed. Fixing that needs CFI, which is what the libunwind path is for.
  while (n < max) {
    if ((fp & 7) != 0 || !live.contains(fp, 16)) break;
    // [0] = caller's rbp, [1] = return address (stack_read.h: maybe a red zone)
    const uint64_t saved[2] = {load_word(fp), load_word(fp + 8)};
    if (saved[1] == 0) break;
    frames[n++] = saved[1];
    // The stack grows down, so the caller's frame is strictly higher; anything else is a
    // loop or garbage (a function built without frame pointers that reused rbp).
    if (saved[0] <= fp) break;
    fp = saved[0];
  }
  return n;
}

}  // namespace cprof::sampler
