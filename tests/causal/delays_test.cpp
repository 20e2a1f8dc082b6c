// The delay accounting of virtual speedups, against Coz's rules (docs/causal.md).
#include "causal/delays.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "fake_time.h"

namespace cprof::causal {
namespace {

using testing::FakeTime;

constexpr uint64_t kP = 1000000;  // 1 ms period

class Delays : public ::testing::Test {
 protected:
  FakeTime time;
  DelayAccounting delays{time.sleeper()};
  ThreadDelay a, b, c;

  void SetUp() override {
    for (auto* t : {&a, &b, &c}) delays.thread_started(*t);
  }
};

TEST_F(Delays, NothingIsInsertedWithoutAnExperiment) {
  EXPECT_EQ(delays.on_sample_in_selected(a, 0.5, kP), 0u);
  EXPECT_EQ(delays.global_ns(), 0u);
  EXPECT_EQ(delays.pay(b), 0u);
  EXPECT_TRUE(time.sleeps.empty());
}

TEST_F(Delays, SelectedSampleAddsSpeedupTimesPeriodToLocalAndGlobal) {
  delays.begin_experiment(0.25, kP);
  EXPECT_EQ(delays.on_sample_in_selected(a, 0.25, kP), 250000u);
  EXPECT_EQ(a.local_ns.load(), 250000u);
  EXPECT_EQ(delays.global_ns(), 250000u);
  EXPECT_EQ(delays.owed(a), 0u);  // it ran the selected code: it owes nothing
  EXPECT_EQ(delays.owed(b), 250000u);
  EXPECT_EQ(delays.selected_samples(), 1u);
  EXPECT_EQ(a.selected_samples.load(), 1u);
}

TEST_F(Delays, ExperimentsOwnSpeedupAndPeriodArePrecomputed) {
  delays.begin_experiment(0.4, kP);
  EXPECT_EQ(delays.delay_per_sample_ns(), 400000u);
  EXPECT_EQ(delays.on_sample_in_selected(a), 400000u);
  EXPECT_EQ(delays.global_ns(), 400000u);
}

TEST_F(Delays, ZeroSpeedupCountsSamplesButInsertsNothing) {
  delays.begin_experiment(0.0, kP);
  delays.on_sample_in_selected(a);
  delays.on_sample_in_selected(b);
  EXPECT_EQ(delays.global_ns(), 0u);
  EXPECT_EQ(delays.selected_samples(), 2u);
}

TEST_F(Delays, ThreadBehindPaysByTheInjectedSleeper) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  EXPECT_EQ(delays.pay(b), 1000000u);
  ASSERT_EQ(time.sleeps.size(), 1u);
  EXPECT_EQ(time.sleeps[0], 1000000u);
  EXPECT_EQ(delays.owed(b), 0u);
  EXPECT_EQ(b.paid_ns.load(), 1000000u);
  EXPECT_EQ(b.pays.load(), 1u);
  EXPECT_EQ(delays.pay(b), 0u);  // paid up
  EXPECT_EQ(delays.pay(a), 0u);  // never owed
  EXPECT_EQ(time.sleeps.size(), 1u);
}

// Two threads running the selected code at the same time are sped up together: the
// global count is the maximum of the local counts, not their sum.
TEST_F(Delays, ConcurrentSelectedSamplesDoNotAddUp) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.on_sample_in_selected(b, 0.5, kP);
  EXPECT_EQ(delays.global_ns(), 500000u);
  EXPECT_EQ(delays.owed(a), 0u);
  EXPECT_EQ(delays.owed(b), 0u);
  EXPECT_EQ(delays.owed(c), 500000u);
}

// One after the other (b paid for a's first), the speedups do add up.
TEST_F(Delays, SequentialSelectedSamplesAddUp) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.pay(b);
  delays.on_sample_in_selected(b, 0.5, kP);
  EXPECT_EQ(delays.global_ns(), 1000000u);
  EXPECT_EQ(delays.owed(a), 500000u);
  EXPECT_EQ(delays.owed(c), 1000000u);
}

// A selected sample of a thread that owes reduces its debt instead of raising the
// global count.
TEST_F(Delays, SelectedSampleOfAThreadBehindPaysItsDebt) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.on_sample_in_selected(b, 0.5, kP);
  EXPECT_EQ(delays.global_ns(), 1000000u);
  EXPECT_EQ(delays.owed(b), 500000u);
}

// An oversleep is banked by the thread and pays its next debt; the others do not pause
// as long (Coz's wait() makes them, which snowballs on a busy machine: delays.h).
TEST_F(Delays, OversleepPaysTheThreadsNextDebtAndNoOneElses) {
  time.overshoot = 60000;
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  EXPECT_EQ(delays.pay(b), 560000u);
  EXPECT_EQ(delays.global_ns(), 500000u);  // the delay the selected sample inserted, no more
  EXPECT_EQ(delays.owed(b), 0u);
  EXPECT_EQ(delays.owed(a), 0u);
  EXPECT_EQ(b.overslept_ns.load(), 60000u);
  // The next debt: 60 us of it were slept already, the rest is slept (overshooting again).
  delays.on_sample_in_selected(a, 0.5, kP);
  EXPECT_EQ(delays.pay(b), 500000u);
  EXPECT_EQ(time.sleeps.back(), 440000u);
  EXPECT_EQ(delays.global_ns(), 1000000u);
  EXPECT_EQ(b.paid_ns.load(), 1060000u);  // one overshoot ahead, not one per pause
  // A debt smaller than the bank needs no sleep.
  delays.on_sample_in_selected(a, 0.05, kP);
  const size_t sleeps = time.sleeps.size();
  EXPECT_EQ(delays.pay(b), 0u);
  EXPECT_EQ(time.sleeps.size(), sleeps);
  EXPECT_EQ(b.overslept_ns.load(), 10000u);
  // A new experiment starts with an empty bank.
  delays.end_experiment();
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.pay(b);
  EXPECT_EQ(b.overslept_ns.load(), 60000u);
}

TEST_F(Delays, ThreadWokenByAnotherIsCreditedForDelaysWhileBlocked) {
  delays.begin_experiment(0.5, kP);
  const uint64_t at_block = delays.before_block(b);
  for (int i = 0; i < 4; ++i) delays.on_sample_in_selected(a, 0.5, kP);
  delays.before_wake_other(a);  // a owes nothing: no sleep
  EXPECT_EQ(delays.after_woken_by_other(b, at_block), 2000000u);
  EXPECT_EQ(delays.owed(b), 0u);
  EXPECT_EQ(b.credited_ns.load(), 2000000u);
  EXPECT_TRUE(time.sleeps.empty());
}

TEST_F(Delays, WakerPaysWhatItOwesBeforeWaking) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  EXPECT_EQ(delays.before_wake_other(c), 500000u);
  EXPECT_EQ(delays.owed(c), 0u);
}

// A thread pays its debt before it blocks (not later, inside whatever it blocked for);
// the credit for the time blocked never puts it ahead of the global count.
TEST_F(Delays, DebtIsPaidBeforeBlockingAndCreditNeverGetsAhead) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);  // b owes 0.5 ms
  const uint64_t at_block = delays.before_block(b);
  ASSERT_EQ(time.sleeps.size(), 1u);
  EXPECT_EQ(time.sleeps[0], 500000u);
  EXPECT_EQ(at_block, 500000u);
  delays.on_sample_in_selected(a, 0.5, kP);  // inserted while b is blocked
  EXPECT_EQ(delays.after_woken_by_other(b, at_block), 500000u);
  EXPECT_EQ(delays.owed(b), 0u);
  // A stale snapshot (from before an earlier delay) cannot credit past the global count.
  EXPECT_EQ(delays.after_woken_by_other(c, 0), 1000000u);
  EXPECT_EQ(delays.owed(c), 0u);
  EXPECT_EQ(delays.global_ns(), 1000000u);
}

TEST_F(Delays, SelfWakePaysTheDelaysInsertedWhileItSlept) {
  delays.begin_experiment(0.5, kP);
  delays.before_block(b);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  EXPECT_EQ(delays.after_self_wake(b), 1000000u);
  EXPECT_EQ(delays.owed(b), 0u);
}

TEST_F(Delays, DebtsAreForgivenBetweenExperiments) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.end_experiment();
  EXPECT_EQ(delays.pay(b), 0u);  // ended: forgiven, not slept
  EXPECT_EQ(delays.owed(b), 0u);
  EXPECT_TRUE(time.sleeps.empty());
}

// A thread that did not run between two experiments does not pay the first one's debt
// in the second.
TEST_F(Delays, OldExperimentsDebtIsNotPaidInTheNextOne) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  delays.end_experiment();
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  EXPECT_EQ(delays.pay(c), 500000u);
}

TEST_F(Delays, NewThreadOwesNothingForThePast) {
  delays.begin_experiment(0.5, kP);
  delays.on_sample_in_selected(a, 0.5, kP);
  ThreadDelay late;
  delays.thread_started(late);
  EXPECT_EQ(delays.owed(late), 0u);
}

// A signal that interrupts a payment must not pay the same debt again.
TEST(DelaysReentrancy, NestedPayOnTheSameThreadDoesNothing) {
  struct Ctx {
    DelayAccounting* delays = nullptr;
    ThreadDelay* thread = nullptr;
    uint64_t nested = ~uint64_t{0};
    uint64_t sleeps = 0;
  } ctx;
  Sleeper s{[](uint64_t ns, void* p) {
              auto* c = static_cast<Ctx*>(p);
              ++c->sleeps;
              if (c->sleeps == 1) c->nested = c->delays->pay(*c->thread);  // "the handler"
              return ns;
            },
            &ctx};
  DelayAccounting delays(s);
  ThreadDelay a, b;
  ctx.delays = &delays;
  ctx.thread = &b;
  delays.thread_started(a);
  delays.thread_started(b);
  delays.begin_experiment(1.0, kP);
  delays.on_sample_in_selected(a, 1.0, kP);
  EXPECT_EQ(delays.pay(b), kP);
  EXPECT_EQ(ctx.nested, 0u);
  EXPECT_EQ(ctx.sleeps, 1u);
  EXPECT_FALSE(b.paying.load());
}

// Many threads add and pay at once: at the end everyone who paid is level with the
// global count, which is at least every thread's own inserted delay.
TEST(DelaysConcurrency, ManyThreadsStayConsistent) {
  FakeTime unused;
  DelayAccounting delays(Sleeper{[](uint64_t ns, void*) { return ns; }, &unused});
  delays.begin_experiment(0.1, kP);
  constexpr int kThreads = 4;
  std::vector<ThreadDelay> threads(kThreads);
  for (auto& t : threads) delays.thread_started(t);
  std::vector<std::thread> workers;
  for (int i = 0; i < kThreads; ++i) {
    workers.emplace_back([&, i] {
      for (int k = 0; k < 20000; ++k) {
        if ((k + i) % 3 == 0) delays.on_sample_in_selected(threads[i]);
        delays.pay(threads[i]);
      }
    });
  }
  for (auto& w : workers) w.join();
  for (auto& t : threads) {
    delays.pay(t);
    EXPECT_EQ(delays.owed(t), 0u);
    EXPECT_LE(t.local_ns.load(), delays.global_ns());
    EXPECT_GE(delays.global_ns(), t.selected_samples.load() * 100000);
  }
  EXPECT_EQ(delays.selected_samples(), [&] {
    uint64_t n = 0;
    for (auto& t : threads) n += t.selected_samples.load();
    return n;
  }());
}

}  // namespace
}  // namespace cprof::causal
