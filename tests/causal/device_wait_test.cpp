// Threads waiting for the GPU (docs/causal.md "Waiting for the GPU"): the wait's delay
// rules (DelayAccounting::device_wait_begin/_end) and the sampling handler's step
// (causal_sample) for a thread inside a wait, with fake time.
#include <gtest/gtest.h>

#include "causal/delays.h"
#include "causal/sample_step.h"
#include "fake_time.h"

namespace cprof::causal {
namespace {

using testing::FakeTime;

constexpr uint64_t kP = 1000000;  // 1 ms period

class DeviceWait : public ::testing::Test {
 protected:
  FakeTime time;
  DelayAccounting delays{time.sleeper()};
  ThreadDelay waiter, other;
  LocationTable table;
  uint32_t line = 0;  // the selected line: [0x1000, 0x1100)
  RecentLocations recent;

  void SetUp() override {
    delays.thread_started(waiter);
    delays.thread_started(other);
    line = table.add("app.cpp:42", {{0x1000, 0x1100}});
    table.finish();
  }
  SampleStep step() { return SampleStep{delays, &table.at(line), &table, &recent}; }
  // A stack whose interrupted PC lies in the selected line (a spin inside the wait called
  // from app.cpp:42 would have the line as a return address; either way it is on the stack).
  static constexpr uint64_t kInLine[] = {0x1010, 0x5000};
};

TEST_F(DeviceWait, SampleInTheSelectedLineOutsideAWaitAddsTheDelayAndPays) {
  delays.begin_experiment(0.5, kP);
  EXPECT_EQ(causal_sample(step(), waiter, kInLine), SampleOutcome::counted);
  EXPECT_EQ(waiter.local_ns.load(), 500000u);
  EXPECT_EQ(delays.global_ns(), 500000u);
  EXPECT_EQ(recent.noted(), 1u);
}

// End to end (automatic), the in-scope location is counted too, except inside a wait.
TEST_F(DeviceWait, AnEndToEndTallyCountsInScopeSamplesOutsideWaits) {
  LocationTally tally(table.size());
  SampleStep s = step();
  s.tally = &tally;
  constexpr uint64_t kElsewhere[] = {0x9000, 0x9100};
  causal_sample(s, waiter, kInLine);
  causal_sample(s, other, kElsewhere);  // in no location
  delays.device_wait_begin(waiter);
  causal_sample(s, waiter, kInLine);  // waiting for the device: not the line's CPU time
  EXPECT_EQ(tally.count(line), 1u);
}

TEST_F(DeviceWait, SampleInTheSelectedLineWhileWaitingAddsNoDelayNotesNothingAndDoesNotPay) {
  delays.begin_experiment(0.5, kP);
  causal_sample(step(), other, kInLine);  // another thread ran the line: the waiter owes
  ASSERT_EQ(delays.owed(waiter), 500000u);
  delays.device_wait_begin(waiter);  // pays first (before_block)
  ASSERT_EQ(time.sleeps.size(), 1u);
  ASSERT_EQ(delays.owed(waiter), 0u);
  causal_sample(step(), other, kInLine);  // inserted while it waits
  const uint64_t noted = recent.noted();
  EXPECT_EQ(causal_sample(step(), waiter, kInLine), SampleOutcome::in_device_wait);
  EXPECT_EQ(causal_sample(step(), waiter, kInLine), SampleOutcome::in_device_wait);
  EXPECT_EQ(waiter.selected_samples.load(), 0u);
  EXPECT_EQ(recent.noted(), noted);          // not a candidate for automatic selection
  EXPECT_EQ(delays.global_ns(), 1000000u);   // only the other thread's two samples
  EXPECT_EQ(time.sleeps.size(), 1u);         // no pause inside the wait
  EXPECT_EQ(delays.owed(waiter), 500000u);
  // Even a direct call adds nothing while it waits.
  EXPECT_EQ(delays.on_sample_in_selected(waiter), 0u);
}

TEST_F(DeviceWait, TheDeviceWakesItSoItPaysTheDelaysInsertedMeanwhile) {
  delays.begin_experiment(0.5, kP);
  delays.device_wait_begin(waiter);
  delays.on_sample_in_selected(other);
  delays.on_sample_in_selected(other);
  delays.device_wait_end(waiter);  // after_self_wake: nobody paid for it
  ASSERT_EQ(time.sleeps.size(), 1u);
  EXPECT_EQ(time.sleeps[0], 1000000u);
  EXPECT_EQ(waiter.paid_ns.load(), 1000000u);
  EXPECT_EQ(waiter.credited_ns.load(), 0u);
  EXPECT_EQ(delays.owed(waiter), 0u);
}

TEST_F(DeviceWait, RuntimeThreadsWakingItInsideTheWaitGiveNoCredit) {
  // The GPU runtime's own futex/condvar wait inside the signal wait, woken by the
  // runtime's thread (interposed as a wake by another thread), must not credit it.
  delays.begin_experiment(0.5, kP);
  delays.device_wait_begin(waiter);
  const uint64_t g = delays.before_block(waiter);  // the inner condvar wait
  delays.on_sample_in_selected(other);
  EXPECT_EQ(delays.after_woken_by_other(waiter, g), 0u);
  EXPECT_EQ(delays.before_wake_other(waiter), 0u);  // nor pays inside
  EXPECT_EQ(delays.owed(waiter), 500000u);
  delays.device_wait_end(waiter);
  EXPECT_EQ(waiter.paid_ns.load(), 500000u);
  EXPECT_EQ(waiter.credited_ns.load(), 0u);
}

TEST_F(DeviceWait, NestedWaitsCountOnceTheOutermostEnds) {
  delays.begin_experiment(0.5, kP);
  delays.device_wait_begin(waiter);  // cudaDeviceSynchronize
  delays.device_wait_begin(waiter);  // ... calls cuCtxSynchronize
  delays.on_sample_in_selected(other);
  delays.device_wait_end(waiter);
  EXPECT_TRUE(DelayAccounting::in_device_wait(waiter));
  EXPECT_TRUE(time.sleeps.empty());
  delays.device_wait_end(waiter);
  EXPECT_FALSE(DelayAccounting::in_device_wait(waiter));
  EXPECT_EQ(time.sleeps, std::vector<uint64_t>{500000u});
  delays.device_wait_end(waiter);  // an unpaired end is ignored
  EXPECT_EQ(waiter.device_waits.load(), 0u);
}

TEST_F(DeviceWait, AfterTheWaitSamplesCountAgain) {
  delays.begin_experiment(0.5, kP);
  delays.device_wait_begin(waiter);
  delays.device_wait_end(waiter);
  EXPECT_EQ(causal_sample(step(), waiter, kInLine), SampleOutcome::counted);
  EXPECT_EQ(waiter.selected_samples.load(), 1u);
}

TEST_F(DeviceWait, BetweenExperimentsAWaitNeitherPaysNorCounts) {
  delays.device_wait_begin(waiter);
  EXPECT_EQ(causal_sample(step(), waiter, kInLine), SampleOutcome::in_device_wait);
  delays.device_wait_end(waiter);
  EXPECT_TRUE(time.sleeps.empty());
  EXPECT_EQ(delays.global_ns(), 0u);
}

}  // namespace
}  // namespace cprof::causal
