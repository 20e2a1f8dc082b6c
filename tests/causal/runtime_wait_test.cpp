// Threads waiting inside a parallel runtime (docs/causal.md "Waits that spin"): the wait's
// delay rules (DelayAccounting::runtime_wait_begin/_end) and the sampling step for a
// thread inside one, spinning in the runtime's code or running a task it was given, with
// fake time.
#include <gtest/gtest.h>

#include "causal/delays.h"
#include "causal/sample_step.h"
#include "fake_time.h"

namespace cprof::causal {
namespace {

using testing::FakeTime;

constexpr uint64_t kP = 1000000;  // 1 ms period
constexpr uint64_t kHalf = kP / 2;

class RuntimeWait : public ::testing::Test {
 protected:
  FakeTime time;
  DelayAccounting delays{time.sleeper()};
  ThreadDelay waiter, worker;
  LocationTable table;
  uint32_t line = 0;  // the selected line: [0x1000, 0x1100)
  RecentLocations recent;
  // The runtime's text (libgomp): [0x7000, 0x8000).
  static constexpr CodeRange kRuntime{0x7000, 0x8000};

  void SetUp() override {
    delays.thread_started(waiter);
    delays.thread_started(worker);
    line = table.add("app.cpp:42", {{0x1000, 0x1100}});
    table.finish();
  }
  // libc's and the vDSO's text.
  static constexpr CodeRange kSystem[] = {{0x9000, 0xa000}, {0xb000, 0xb100}};
  SampleStep step() {
    return SampleStep{delays, &table.at(line), &table, &recent, kRuntime, kSystem};
  }
  // Spinning in the runtime, called from a function that the selected line called.
  static constexpr uint64_t kSpinning[] = {0x7010, 0x1010, 0x5000};
  // A task the runtime runs inside the wait: the selected line, called from the runtime.
  static constexpr uint64_t kTaskInLine[] = {0x1010, 0x7020, 0x5000};
  static constexpr uint64_t kInLine[] = {0x1010, 0x5000};
};

TEST_F(RuntimeWait, ReleasedByAnotherThreadItIsCreditedTheDelaysInsertedWhileItWaited) {
  delays.begin_experiment(0.5, kP);
  delays.runtime_wait_begin(waiter);  // a worker done with its share, at the barrier
  causal_sample(step(), worker, kInLine);  // the slow thread runs the line meanwhile
  causal_sample(step(), worker, kInLine);
  ASSERT_EQ(delays.owed(waiter), kP);
  delays.runtime_wait_end(waiter);  // the slow thread arrived last and released it
  EXPECT_EQ(delays.owed(waiter), 0u);
  EXPECT_EQ(waiter.credited_ns.load(), kP);
  EXPECT_TRUE(time.sleeps.empty());  // it never paused: it was not late
}

TEST_F(RuntimeWait, ADebtFromBeforeTheWaitIsPaidAsItBegins) {
  delays.begin_experiment(0.5, kP);
  causal_sample(step(), worker, kInLine);  // inserted while the waiter still worked
  delays.runtime_wait_begin(waiter);
  EXPECT_EQ(time.sleeps, std::vector<uint64_t>{kHalf});
  EXPECT_EQ(delays.owed(waiter), 0u);
}

TEST_F(RuntimeWait, SpinningSamplesNeitherPayNorCountNorNoteTheLine) {
  delays.begin_experiment(0.5, kP);
  delays.runtime_wait_begin(waiter);
  causal_sample(step(), worker, kInLine);
  const uint64_t noted = recent.noted();
  // Without the wait marked, this sample would pay and count the line (it is on the
  // stack below the spin): the spinning thread would be late when released.
  EXPECT_EQ(causal_sample(step(), waiter, kSpinning), SampleOutcome::in_runtime_wait);
  EXPECT_EQ(causal_sample(step(), waiter, kSpinning), SampleOutcome::in_runtime_wait);
  EXPECT_TRUE(time.sleeps.empty());
  EXPECT_EQ(waiter.selected_samples.load(), 0u);
  EXPECT_EQ(recent.noted(), noted);
  EXPECT_EQ(delays.global_ns(), kHalf);
}

// libomp yields (sched_yield, in libc) and reads the clock (the vDSO) while it spins: the
// first frame outside system code decides.
TEST_F(RuntimeWait, SamplesInSystemCodeTheRuntimeCalledAreSpinningToo) {
  delays.begin_experiment(0.5, kP);
  delays.runtime_wait_begin(waiter);
  causal_sample(step(), worker, kInLine);
  static constexpr uint64_t kYield[] = {0x9010, 0x7010, 0x1010, 0x5000};
  static constexpr uint64_t kClock[] = {0xb010, 0x9020, 0x7010, 0x1010};
  EXPECT_EQ(causal_sample(step(), waiter, kYield), SampleOutcome::in_runtime_wait);
  EXPECT_EQ(causal_sample(step(), waiter, kClock), SampleOutcome::in_runtime_wait);
  EXPECT_TRUE(time.sleeps.empty());
  EXPECT_EQ(waiter.selected_samples.load(), 0u);
  // A task inside the wait calling libc (a memcpy in the line) is work: counted, paid.
  static constexpr uint64_t kTaskCallsLibc[] = {0x9030, 0x1010, 0x7020, 0x5000};
  EXPECT_EQ(causal_sample(step(), waiter, kTaskCallsLibc), SampleOutcome::counted);
  EXPECT_EQ(waiter.selected_samples.load(), 1u);
}

TEST_F(RuntimeWait, SpinningSamplesOutsideAWaitStillCount) {
  delays.begin_experiment(0.5, kP);
  EXPECT_EQ(causal_sample(step(), waiter, kSpinning), SampleOutcome::counted);
  EXPECT_EQ(waiter.selected_samples.load(), 1u);
}

TEST_F(RuntimeWait, ATaskRunInsideTheWaitIsWorkItCountsAndPays) {
  delays.begin_experiment(0.5, kP);
  delays.runtime_wait_begin(waiter);
  causal_sample(step(), worker, kInLine);
  EXPECT_EQ(causal_sample(step(), waiter, kTaskInLine), SampleOutcome::counted);
  EXPECT_EQ(waiter.selected_samples.load(), 1u);
  // Both ran the line for one sample each: the global count is the maximum, no debt.
  EXPECT_EQ(delays.global_ns(), kHalf);
  EXPECT_EQ(delays.owed(waiter), 0u);
  causal_sample(step(), worker, kInLine);
  causal_sample(step(), worker, kInLine);
  // The task runs the line again (+1/2) and pays what it still owes: 3/2 - 1.
  causal_sample(step(), waiter, kTaskInLine);
  EXPECT_EQ(time.sleeps, std::vector<uint64_t>{kHalf});
}

TEST_F(RuntimeWait, TheRuntimesOwnFutexCallsInsideTheWaitAreOneBlock) {
  delays.begin_experiment(0.5, kP);
  delays.runtime_wait_begin(waiter);
  const uint64_t g = delays.before_block(waiter);  // the spin gave up: futex wait
  delays.on_sample_in_selected(worker);
  EXPECT_EQ(delays.after_woken_by_other(waiter, g), 0u);
  EXPECT_EQ(delays.after_self_wake(waiter), 0u);
  EXPECT_EQ(delays.before_wake_other(waiter), 0u);
  EXPECT_TRUE(time.sleeps.empty());
  EXPECT_EQ(delays.owed(waiter), kHalf);
  delays.runtime_wait_end(waiter);
  EXPECT_EQ(delays.owed(waiter), 0u);
  EXPECT_EQ(waiter.credited_ns.load(), kHalf);
}

TEST_F(RuntimeWait, NestedWaitsCountOnceAndAnUnpairedEndIsIgnored) {
  delays.begin_experiment(0.5, kP);
  delays.runtime_wait_end(waiter);  // a new worker's first region: no wait to end
  EXPECT_EQ(waiter.runtime_waits.load(), 0u);
  delays.runtime_wait_begin(waiter);
  delays.runtime_wait_begin(waiter);
  delays.on_sample_in_selected(worker);
  delays.runtime_wait_end(waiter);
  EXPECT_TRUE(DelayAccounting::in_runtime_wait(waiter));
  EXPECT_EQ(waiter.credited_ns.load(), 0u);
  delays.runtime_wait_end(waiter);
  EXPECT_FALSE(DelayAccounting::in_runtime_wait(waiter));
  EXPECT_EQ(waiter.credited_ns.load(), kHalf);
}

TEST_F(RuntimeWait, AWaitAcrossExperimentsOwesNothingFromTheEarlierOne) {
  delays.begin_experiment(0.5, kP);
  delays.runtime_wait_begin(waiter);
  delays.on_sample_in_selected(worker);
  delays.end_experiment();
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(worker);
  delays.runtime_wait_end(waiter);
  EXPECT_EQ(delays.owed(waiter), 0u);
  EXPECT_TRUE(time.sleeps.empty());
}

}  // namespace
}  // namespace cprof::causal
