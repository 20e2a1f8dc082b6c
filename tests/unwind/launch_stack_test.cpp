// gpu::LaunchStacks (the CUDA/HSA launch-site stacks) uses the fast DWARF unwinder from a
// normal context: its frames must be libunwind's. Its own executable: LaunchStacks owns
// the process-wide unwinder (init_unwinding) for its lifetime.
#include "gpu/common/launch_stack.h"

#include <gtest/gtest.h>
#include <ucontext.h>

#include "sampler/unwind/unwinder.h"
#include "tests/unwind/chain.h"

namespace cprof::sampler::test {
namespace {

struct Captured {
  uint64_t fast[256];
  size_t n_fast = 0;
  uint64_t reference[256];
  size_t n_reference = 0;
};

gpu::LaunchStacks* g_stacks = nullptr;

void leaf(void* p) {
  auto& c = *static_cast<Captured*>(p);
  c.n_fast = g_stacks->capture(c.fast);
  ucontext_t uc;
  getcontext(&uc);
  c.n_reference = unwind_with_libunwind(&uc, current_thread_stack_bounds(), c.reference, 256);
}

TEST(LaunchStacks, CapturesTheSameFramesAsLibunwind) {
  gpu::LaunchStacks stacks(200, true);
  g_stacks = &stacks;
  ASSERT_TRUE(register_unwind_thread());
  for (int depth : {1, 10, 40}) {
    Captured c;
    nofp::recurse(depth, leaf, &c);
    // LaunchStacks leaves out the frames of the library it is linked into (here this test
    // executable, at most 16); the rest must be exactly the caller frames libunwind finds.
    ASSERT_GT(c.n_fast, 0u) << depth;
    ASSERT_LE(c.n_fast, c.n_reference) << depth;
    EXPECT_GE(c.n_fast + 17, c.n_reference) << depth;
    for (size_t i = 1; i <= c.n_fast; ++i) {
      ASSERT_EQ(c.fast[c.n_fast - i], c.reference[c.n_reference - i])
          << "depth " << depth << " frame -" << i;
    }
  }
  unregister_unwind_thread();
  g_stacks = nullptr;
}

TEST(LaunchStacks, DisabledCapturesNothing) {
  gpu::LaunchStacks stacks(64, false);
  uint64_t frames[64];
  EXPECT_EQ(stacks.capture(frames), 0u);
}

}  // namespace
}  // namespace cprof::sampler::test
