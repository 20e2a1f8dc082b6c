// Delays split at blocks and wake-ups by time (delays.h, "Periods"; docs/causal.md,
// "Delays stand for a period"): a selected sample's delay stands for its thread's last
// period, so a thread that blocked or woke within that period owes the part it ran
// through and is credited the rest.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "causal/delays.h"
#include "causal/selected_sample_log.h"
#include "fake_time.h"

namespace cprof::causal {
namespace {

using testing::FakeTime;

constexpr uint64_t kP = 1000000;  // 1 ms period
constexpr uint64_t kUs = 1000;    // a microsecond

TEST(SelectedSampleLog, AnEntryCountsForThePartOfItsPeriodInsideTheTimes) {
  SelectedSampleLog log;
  log.record({.start_ns = 0, .end_ns = 1000 * kUs}, /*from*/ 0, /*to*/ 500 * kUs, /*owner*/ 1);
  // Its period is [0, 1000 us]: 600 us of it fall in [0, 600 us].
  EXPECT_EQ(log.share_of(0, 500 * kUs, 0, 600 * kUs, 2), 300 * kUs);
  // The thread that took it never owes its own sample.
  EXPECT_EQ(log.share_of(0, 500 * kUs, 0, 600 * kUs, 1), 0u);
  // Only the part of its range of the global count inside the one asked about.
  EXPECT_EQ(log.share_of(250 * kUs, 500 * kUs, 0, 600 * kUs, 2), 150 * kUs);
  // Times outside its period.
  EXPECT_EQ(log.share_of(0, 500 * kUs, 1000 * kUs, 2000 * kUs, 2), 0u);
}

TEST(SelectedSampleLog, OverwrittenEntriesAreGone) {
  SelectedSampleLog log;
  log.record({.start_ns = 0, .end_ns = 1000 * kUs}, 0, 100, 1);
  for (uint32_t i = 0; i < SelectedSampleLog::kEntries; ++i) {
    log.record({.start_ns = 4000 * kUs, .end_ns = 5000 * kUs}, 1000 + i, 1001 + i, 1);
  }
  EXPECT_EQ(log.share_of(0, 100, 0, 1000 * kUs, 2), 0u);
}

// Handlers of several threads write while interposed calls read: a reader never sees an
// entry half written (each entry's delay is 10 over a span of 100, all inside the times
// asked about, so any entry read whole adds exactly 10). Run under TSan too.
TEST(SelectedSampleLog, WritersAndReadersAtOnce) {
  SelectedSampleLog log;
  std::atomic<bool> wrong{false};
  std::vector<std::thread> threads;
  for (uintptr_t w = 1; w <= 3; ++w) {
    threads.emplace_back([&log, w] {
      for (uint64_t k = 0; k < 20000; ++k) {
        const uint64_t g = (k * 3 + w) * 10;
        log.record({.start_ns = k, .end_ns = k + 100}, g, g + 10, w);
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 2000; ++i) {
      if (log.share_of(0, UINT64_MAX, 0, UINT64_MAX, 0) % 10 != 0) wrong = true;
    }
  });
  for (auto& t : threads) t.join();
  EXPECT_FALSE(wrong.load());
  EXPECT_EQ(log.share_of(0, UINT64_MAX, 0, UINT64_MAX, 0), 10u * SelectedSampleLog::kEntries);
}

class DelayPeriods : public ::testing::Test {
 protected:
  FakeTime time;
  DelayAccounting delays{time.sleeper(), time.clock()};
  ThreadDelay a, b;

  void SetUp() override {
    for (auto* t : {&a, &b}) delays.thread_started(*t);
    delays.begin_experiment(0.5, kP);
  }

  // b blocks at `block_us`, a's sample in the location at `sample_us` inserts 500 us, a
  // wakes b at `wake_us`: what b is credited.
  uint64_t credit_for_b(uint64_t block_us, uint64_t sample_us, uint64_t wake_us) {
    time.now = block_us * kUs;
    delays.before_block(b);
    time.now = sample_us * kUs;
    delays.on_sample_in_selected(a);
    time.now = wake_us * kUs;
    return delays.after_woken_by_other(b);
  }
};

// b ran 600 us of a's 1 ms period, then blocked; a's sample at the period's end inserts
// 500 us. b owes the 300 us of it it ran through, and is credited the other 200 us.
TEST_F(DelayPeriods, AThreadThatBlockedWithinASamplesPeriodOwesThePartItRan) {
  EXPECT_EQ(credit_for_b(600, 1000, 1100), 200 * kUs);
  EXPECT_EQ(delays.owed(b), 300 * kUs);
}

// A period of CPU time spans more wall time when its thread blocked within it: the
// sample's span is the last P of its thread's running time, its block a hole. a blocked
// from 1.1 ms to 1.7 ms and was sampled at 2 ms: its 500 us stand for [0.4 ms, 2 ms] less
// the block, 1 ms of running time. b ran from 1.6 ms to 1.85 ms, 150 us of a's running
// time (the 100 us before 1.7 ms are a's block): b owes 75 us, and is credited 425.
TEST_F(DelayPeriods, ASamplesSpanLeavesOutItsThreadsLastBlock) {
  delays.before_block(b);
  time.now = 1100 * kUs;
  delays.before_block(a);
  time.now = 1600 * kUs;
  delays.after_self_wake(b);
  time.now = 1700 * kUs;
  delays.after_woken_by_other(a);
  time.now = 1850 * kUs;
  delays.before_block(b);
  time.now = 2000 * kUs;
  delays.on_sample_in_selected(a);
  time.now = 2100 * kUs;
  EXPECT_EQ(delays.after_woken_by_other(b), 425 * kUs);
  EXPECT_EQ(delays.owed(b), 75 * kUs);
}

TEST(SelectedSampleLog, AHoleInASpanIsNobodysTime) {
  SelectedSampleLog log;
  log.record({.start_ns = 0, .end_ns = 1000, .hole_lo_ns = 200, .hole_hi_ns = 600}, 0, 600, 1);
  // 600 of running time; [0, 400] holds 200 of it: a third.
  EXPECT_EQ(log.share_of(0, 600, 0, 400, 2), 200u);
  // The hole alone: none.
  EXPECT_EQ(log.share_of(0, 600, 250, 550, 2), 0u);
}

// A thread that runs other code between its samples in the location (a lock's holder,
// a third of its samples in its own work) is in the location at the sample's instant,
// not across its period: its samples count whole.
TEST_F(DelayPeriods, SamplesOfAThreadThatRunsOtherCodeTooCountWhole) {
  for (int i = 0; i < 3; ++i) delays.on_sample(a);
  EXPECT_EQ(credit_for_b(600, 1000, 1100), 500 * kUs);  // the sample is 1 of its 3
  EXPECT_EQ(delays.owed(b), 0u);
}

// Without a clock the sample counts whole at its instant: all of it is credited.
TEST(DelayPeriodsWithoutAClock, ASampleAfterTheBlockIsCreditedWhole) {
  FakeTime time;
  DelayAccounting delays{time.sleeper()};
  ThreadDelay a, b;
  delays.thread_started(a);
  delays.thread_started(b);
  delays.begin_experiment(0.5, kP);
  time.now = 600 * kUs;
  delays.before_block(b);
  time.now = 1000 * kUs;
  delays.on_sample_in_selected(a);
  EXPECT_EQ(delays.after_woken_by_other(b), 500 * kUs);
  EXPECT_EQ(delays.owed(b), 0u);
}

// b blocked from 0 and was woken at 400 us; a's sample at 1 ms stands for [0, 1 ms]: b
// was blocked for 400 us of it, so it is credited 200 us and pays 300 us.
TEST_F(DelayPeriods, AThreadWokenWithinASamplesPeriodIsCreditedThePartBeforeItsWake) {
  delays.before_block(b);
  time.now = 400 * kUs;
  EXPECT_EQ(delays.after_woken_by_other(b), 0u);
  time.now = 1000 * kUs;
  delays.on_sample_in_selected(a);
  EXPECT_EQ(delays.pay(b), 300 * kUs);
  EXPECT_EQ(b.credited_ns.load(), 200 * kUs);
  EXPECT_EQ(delays.owed(b), 0u);
  // A period after the wake-up no sample reaches back into the block: owed whole, and
  // the wake-up is settled.
  time.now = 2000 * kUs;
  delays.on_sample_in_selected(a);
  EXPECT_EQ(delays.pay(b), 500 * kUs);
  EXPECT_FALSE(b.wake_pending.load());
}

// Woken by itself (a timeout), nobody paid for it: it owes every delay, whole.
TEST_F(DelayPeriods, AThreadThatWokeByItselfOwesSamplesWhole) {
  delays.before_block(b);
  time.now = 400 * kUs;
  delays.after_self_wake(b);
  time.now = 1000 * kUs;
  delays.on_sample_in_selected(a);
  EXPECT_EQ(delays.pay(b), 500 * kUs);
}

// A sample whose period ended before the block, its delay counted after it (the global
// count read late), is owed whole; one that lies wholly inside the block is credited.
TEST_F(DelayPeriods, SamplesWhollyInsideTheBlockAreCreditedWhole) {
  // a's sample at 1.2 ms stands for [200 us, 1.2 ms]: b blocked all of it.
  EXPECT_EQ(credit_for_b(100, 1200, 1300), 500 * kUs);
  EXPECT_EQ(delays.owed(b), 0u);
}

// A sample of the next experiment is not settled against a wake-up in the one before.
TEST_F(DelayPeriods, AWakeUpIsNotSettledInTheNextExperiment) {
  delays.before_block(b);
  time.now = 400 * kUs;
  delays.after_woken_by_other(b);
  delays.end_experiment();
  delays.begin_experiment(0.5, kP);
  time.now = 1000 * kUs;
  delays.on_sample_in_selected(a);
  EXPECT_EQ(delays.pay(b), 500 * kUs);
}

}  // namespace
}  // namespace cprof::causal
