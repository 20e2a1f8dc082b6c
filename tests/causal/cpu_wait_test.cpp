// How long the program's threads waited for a CPU during the experiments
// (causal/runtime/cpu_wait.h).
#include "causal/runtime/cpu_wait.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

namespace cprof::causal {
namespace {

TEST(CpuWait, WarnsFromTheShareOfTheReadyTimeAsked) {
  EXPECT_EQ(cpu_wait_warning(0, 0, 0.2), "");
  EXPECT_EQ(cpu_wait_warning(810, 190, 0.2), "");
  EXPECT_NE(cpu_wait_warning(810, 190, 0), "");  // 0: always said
  EXPECT_EQ(cpu_wait_warning(0, 0, 0), "");      // ...when something was measured
  const std::string w = cpu_wait_warning(800, 200, 0.2);
  EXPECT_NE(w.find("waited for a CPU during the experiments, 20% of the time they were ready"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("predictions come out smaller"), std::string::npos) << w;
  EXPECT_NE(cpu_wait_warning(0, 5, 0.2).find("100% of the time"), std::string::npos);
}

TEST(CpuWait, ReadsEveryThreadOfTheProcess) {
  if (!std::filesystem::exists("/proc/self/schedstat")) GTEST_SKIP() << "no schedstat";
  std::atomic<bool> stop{false};
  std::atomic<pid_t> spinner_tid{0};
  std::thread spinner([&] {
    spinner_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    while (!stop.load()) {
    }
  });
  while (spinner_tid.load() == 0) {
  }
  CpuWaitTally tally;
  tally.begin();
  usleep(50000);
  const auto times = read_thread_cpu_times();
  tally.end();
  stop = true;
  spinner.join();
  ASSERT_TRUE(times.has_value());
  ASSERT_EQ(times->count(static_cast<pid_t>(::syscall(SYS_gettid))), 1u);
  ASSERT_EQ(times->count(spinner_tid.load()), 1u);
  EXPECT_GT(times->at(spinner_tid.load()).run_ns, 0u);
  // The spinner ran (or waited) for most of the 50 ms window.
  EXPECT_GT(tally.run_ns() + tally.wait_ns(), 25'000'000u);
}

// A thread that ends inside the window is gone from /proc at its end: it counts what it
// read of itself as it ended, once, and nothing outside a window.
TEST(CpuWait, AThreadThatEndsInTheWindowCountsWhatItReadAsItEnded) {
  if (!std::filesystem::exists("/proc/self/schedstat")) GTEST_SKIP() << "no schedstat";
  CpuWaitTally tally;
  tally.thread_ended(12345, CpuTimes{7'000'000'000, 0});  // no window: not counted
  EXPECT_EQ(tally.run_ns(), 0u);
  tally.begin();
  EXPECT_TRUE(tally.window_open());
  std::optional<CpuTimes> own;
  std::thread worker([&] {
    // 30 ms of its own CPU time, however long a loaded machine takes to give them.
    const auto cpu_ns = [] {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(t.tv_nsec);
    };
    const uint64_t end = cpu_ns() + 30'000'000u;
    while (cpu_ns() < end) {
    }
    own = read_own_cpu_times();
    tally.thread_ended(static_cast<pid_t>(::syscall(SYS_gettid)), *own);
  });
  worker.join();
  ASSERT_TRUE(own.has_value());
  EXPECT_GT(own->run_ns, 20'000'000u);
  tally.end();
  EXPECT_FALSE(tally.window_open());
  // The worker's 30 ms, and this thread's own (it slept in join).
  EXPECT_GE(tally.run_ns() + tally.wait_ns(), own->run_ns + own->wait_ns);
  EXPECT_LT(tally.run_ns(), own->run_ns + 20'000'000u);
  tally.forget();
  EXPECT_EQ(tally.run_ns() + tally.wait_ns(), 0u);
}

TEST(CpuWait, AWindowWithoutABeginIsNotCounted) {
  CpuWaitTally tally;
  tally.end();
  EXPECT_EQ(tally.run_ns() + tally.wait_ns(), 0u);
}

// A clock that reads out `fake_times`, one value per call.
std::vector<uint64_t> fake_times;
size_t fake_next = 0;
uint64_t fake_clock() { return fake_times.at(fake_next++); }

// Windows are measured only while the readings cost at most 1% of the wall time: two
// readings of 1 ms each put the next measured window 200 ms after the second.
TEST(CpuWait, ReadingsWaitForAGapTheirCostSets) {
  if (!std::filesystem::exists("/proc/self/schedstat")) GTEST_SKIP() << "no schedstat";
  constexpr uint64_t kMs = 1'000'000;
  fake_times = {0, 1 * kMs,                 // begin: a reading of 1 ms
                50 * kMs, 51 * kMs,         // end: another
                250 * kMs,                  // begin just before 51 + 200 ms: skipped
                251 * kMs, 252 * kMs,       // begin at 251 ms: measured
                260 * kMs, 261 * kMs};      // end
  fake_next = 0;
  CpuWaitTally tally(fake_clock);
  tally.begin();
  EXPECT_TRUE(tally.window_open());
  tally.end();
  const uint64_t first = tally.run_ns() + tally.wait_ns();
  tally.begin();
  EXPECT_FALSE(tally.window_open());
  tally.end();  // nothing to read: the clock is not asked
  EXPECT_EQ(tally.run_ns() + tally.wait_ns(), first);
  tally.begin();
  EXPECT_TRUE(tally.window_open());
  tally.end();
  EXPECT_FALSE(tally.window_open());
  EXPECT_EQ(fake_next, fake_times.size());
}

}  // namespace
}  // namespace cprof::causal
