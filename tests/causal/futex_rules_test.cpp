// The futex classification shared by the syscall() interposer and the Syscall User
// Dispatch handler (causal/runtime/futex_rules.h; docs/causal.md, "Blocking that bypasses
// pthread").

#include "causal/runtime/futex_rules.h"

#include <gtest/gtest.h>

namespace cprof::causal {
namespace {

TEST(FutexRules, WaitOperationsWaitWithAnyFlags) {
  for (int op : {FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_LOCK_PI, FUTEX_LOCK_PI2, FUTEX_WAIT_REQUEUE_PI}) {
    EXPECT_EQ(classify_futex(SYS_futex, op), FutexCall::wait) << op;
    EXPECT_EQ(classify_futex(SYS_futex, op | FUTEX_PRIVATE_FLAG), FutexCall::wait) << op;
    EXPECT_EQ(classify_futex(SYS_futex, op | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME),
              FutexCall::wait)
        << op;
  }
  // libgomp's own: FUTEX_WAIT | FUTEX_PRIVATE_FLAG (config/linux/x86/futex.h).
  EXPECT_EQ(classify_futex(SYS_futex, 128), FutexCall::wait);
}

TEST(FutexRules, WakeOperationsWake) {
  for (int op : {FUTEX_WAKE, FUTEX_WAKE_BITSET, FUTEX_WAKE_OP, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE,
                 FUTEX_CMP_REQUEUE_PI, FUTEX_UNLOCK_PI}) {
    EXPECT_EQ(classify_futex(SYS_futex, op), FutexCall::wake) << op;
    EXPECT_EQ(classify_futex(SYS_futex, op | FUTEX_PRIVATE_FLAG), FutexCall::wake) << op;
  }
  EXPECT_EQ(classify_futex(SYS_futex, 129), FutexCall::wake);  // FUTEX_WAKE_PRIVATE
}

TEST(FutexRules, WaitvAlwaysWaitsWhateverItsSecondArgument) {
  EXPECT_EQ(classify_futex(SYS_futex_waitv, 0), FutexCall::wait);
  EXPECT_EQ(classify_futex(SYS_futex_waitv, 5), FutexCall::wait);
}

TEST(FutexRules, OtherSystemCallsAndOperationsAreNeither) {
  EXPECT_EQ(classify_futex(SYS_getpid, FUTEX_WAIT), FutexCall::other);
  EXPECT_EQ(classify_futex(SYS_gettid, FUTEX_WAKE), FutexCall::other);
  EXPECT_EQ(classify_futex(SYS_futex, FUTEX_TRYLOCK_PI), FutexCall::other);  // never sleeps
  EXPECT_EQ(classify_futex(SYS_futex, FUTEX_FD), FutexCall::other);
  EXPECT_EQ(classify_futex(SYS_futex, 15), FutexCall::other);  // unknown command
}

TEST(FutexRules, HowAWaitEnded) {
  EXPECT_EQ(classify_wait_end(0, 0), WaitEnd::woken_by_other);
  EXPECT_EQ(classify_wait_end(2, 0), WaitEnd::woken_by_other);  // futex_waitv: the index
  EXPECT_EQ(classify_wait_end(-1, ETIMEDOUT), WaitEnd::self_wake);
  EXPECT_EQ(classify_wait_end(-1, EINTR), WaitEnd::self_wake);
  EXPECT_EQ(classify_wait_end(-1, EAGAIN), WaitEnd::did_not_sleep);  // the word had changed
  EXPECT_EQ(classify_wait_end(-1, EFAULT), WaitEnd::did_not_sleep);
}

TEST(FutexRules, CountsPerPath) {
  FutexCounts c;
  c.count(FutexPath::syscall_function, FutexCall::wait);
  c.count(FutexPath::dispatch, FutexCall::wait);
  c.count(FutexPath::dispatch, FutexCall::wait);
  c.count(FutexPath::dispatch, FutexCall::wake);
  c.count(FutexPath::dispatch, FutexCall::other);
  c.count(FutexPath::syscall_function, FutexCall::other);  // syscall() passes through
  EXPECT_EQ(c.waits[0].load(), 1u);
  EXPECT_EQ(c.waits[1].load(), 2u);
  EXPECT_EQ(c.wakes[1].load(), 1u);
  EXPECT_EQ(c.other_syscalls.load(), 1u);
}

}  // namespace
}  // namespace cprof::causal
