// gpu::LaunchStacks (the CUDA/HSA launch-site stacks) uses the fast DWARF unwinder from a
// normal context: its frames must be libunwind's. Its own executable: LaunchStacks owns
// the process-wide unwinder (init_unwinding) for its lifetime.
#include "gpu/common/launch_stack.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdlib>

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

// What libunwind alone gives for the calling thread's stack (0 without an unwinder).
size_t libunwind_depth() {
  const LibunwindUnwinder* u = default_unwinder();
  if (u == nullptr) return 0;
  ucontext_t uc;
  getcontext(&uc);
  uint64_t frames[64];
  return u->unwind(&uc, current_thread_stack_bounds(), frames, 64);
}

size_t g_depth_while_forking = 0;

// Registered before LaunchStacks' own handlers, so it runs after their prepare step.
void observe_prepare() { g_depth_while_forking = libunwind_depth(); }

// libunwind is loaded once per process and shared with the sampler: a launching thread
// inside it when another thread forks would leave the child holding its locks. So
// LaunchStacks closes its copy's libunwind gate while a fork copies the process (an
// unwind then keeps only the PC) and opens it again on both sides.
void fork_with_the_gate_observed() {
  if (pthread_atfork(observe_prepare, nullptr, nullptr) != 0) std::_Exit(2);
  gpu::LaunchStacks stacks(64, true);
  const size_t before = libunwind_depth();
  const pid_t child = fork();
  if (child == 0) std::_Exit(libunwind_depth() > 1 ? 0 : 5);
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) std::_Exit(3);
  if (!WIFEXITED(status)) std::_Exit(4);
  if (WEXITSTATUS(status) != 0) std::_Exit(WEXITSTATUS(status));
  const size_t after = libunwind_depth();
  std::_Exit(before > 1 && g_depth_while_forking == 1 && after > 1 ? 0 : 1);
}

TEST(LaunchStacksDeathTest, LibunwindIsClosedWhileAForkCopiesTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: no earlier handlers
  EXPECT_EXIT(fork_with_the_gate_observed(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cprof::sampler::test
