// Trace windows (gpu/common/trace_windows.h): the settings, where the windows lie, and the
// thread that switches the hooks on and off, with a switch that only records its calls.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "common/monotonic.h"
#include "gpu/common/trace_windows.h"

namespace cprof::gpu {
namespace {

TEST(TraceDuty, UnsetMeansEverythingEveryHundredMilliseconds) {
  std::string error;
  const auto d = parse_trace_duty("", "", error);
  ASSERT_TRUE(d.has_value()) << error;
  EXPECT_EQ(d->duty, 1.0);
  EXPECT_EQ(d->period_ns, 100'000'000u);
  EXPECT_FALSE(d->windowed());
}

TEST(TraceDuty, PercentagesAndPeriods) {
  std::string error;
  EXPECT_EQ(parse_trace_duty("25", "", error)->duty, 0.25);
  EXPECT_EQ(parse_trace_duty("2.5", "", error)->duty, 0.025);
  EXPECT_TRUE(parse_trace_duty("99.9", "", error)->windowed());
  EXPECT_FALSE(parse_trace_duty("100", "", error)->windowed());
  EXPECT_EQ(parse_trace_duty("10", "20", error)->period_ns, 20'000'000u);
  EXPECT_EQ(parse_trace_duty("", "60000", error)->period_ns, 60'000'000'000u);
}

TEST(TraceDuty, BadValuesAreOneLineNamingTheVariable) {
  for (const char* bad : {"0", "-5", "100.5", "abc", "25%", " 25"}) {
    std::string error;
    EXPECT_FALSE(parse_trace_duty(bad, "", error).has_value()) << bad;
    EXPECT_EQ(error, std::string("CPROF_GPU_DUTY=") + bad +
                         ": expected a percentage above 0 and at most 100");
  }
  for (const char* bad : {"0", "x", "60001", "1.5"}) {
    std::string error;
    EXPECT_FALSE(parse_trace_duty("50", bad, error).has_value()) << bad;
    EXPECT_EQ(error.find(std::string("CPROF_GPU_PERIOD_MS=") + bad + ": expected whole"), 0u)
        << error;
  }
}

TEST(WindowPlan, WindowsLieInsideTheirPeriodsAndTheFirstOpensAtTheOrigin) {
  const WindowPlan plan(1'000'000, TraceDuty{.duty = 0.1, .period_ns = 100'000});
  EXPECT_EQ(plan.length_ns, 10'000u);
  EXPECT_EQ(plan.begin_ns(0, 0.7), 1'000'000u);  // window 0: at the start, whatever the offset
  for (uint64_t k = 1; k < 50; ++k) {
    for (const double offset : {0.0, 0.25, 0.5, 0.999999}) {
      const uint64_t b = plan.begin_ns(k, offset);
      EXPECT_GE(b, 1'000'000 + k * 100'000) << k << " " << offset;
      EXPECT_LE(plan.end_ns(k, offset), 1'000'000 + (k + 1) * 100'000) << k << " " << offset;
    }
  }
  EXPECT_EQ(plan.begin_ns(3, 0.5), 1'000'000u + 300'000 + 45'000);
  EXPECT_EQ(plan.period_of(999'999), 0u);
  EXPECT_EQ(plan.period_of(1'000'000 + 250'000), 2u);
  // A tiny duty still gets a window; 100% is the whole period.
  EXPECT_EQ(WindowPlan(0, TraceDuty{.duty = 1e-9, .period_ns = 1000}).length_ns, 1u);
  EXPECT_EQ(WindowPlan(0, TraceDuty{.duty = 1, .period_ns = 1000}).length_ns, 1000u);
}

struct Recorded {
  std::mutex mutex;
  std::vector<bool> switches;
  std::vector<format::GpuTraceWindowRecord> windows;
};

TraceWindows make_windows(Recorded& r, TraceDuty duty) {
  return TraceWindows(
      duty,
      [&r](bool on) {
        std::lock_guard lock(r.mutex);
        r.switches.push_back(on);
      },
      [&r](const format::GpuTraceWindowRecord& w) {
        std::lock_guard lock(r.mutex);
        r.windows.push_back(w);
      },
      42);
}

TEST(TraceWindows, SwitchOffAndOnInTurnAndReportEveryWindowInOrder) {
  Recorded r;
  const TraceDuty duty{.duty = 0.5, .period_ns = 10'000'000};
  auto windows = make_windows(r, duty);
  const uint64_t started = monotonic_ns();
  windows.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  windows.stop();
  const uint64_t stopped = monotonic_ns();
  std::lock_guard lock(r.mutex);
  // 15 periods: some windows however slow this machine is.
  ASSERT_GE(r.switches.size(), 4u);
  for (size_t i = 0; i < r.switches.size(); ++i) {
    EXPECT_EQ(r.switches[i], i % 2 == 1) << i;  // off first: tracing starts on
  }
  // Every off reported a window; a window open at stop() was reported without a switch.
  const bool open_at_stop = r.switches.back();
  EXPECT_EQ(r.windows.size(), (r.switches.size() + 1) / 2 + (open_at_stop ? 1 : 0));
  EXPECT_GE(r.windows.front().start_ns, started);
  EXPECT_LE(r.windows.back().end_ns, stopped);
  for (size_t i = 0; i < r.windows.size(); ++i) {
    const auto& w = r.windows[i];
    EXPECT_EQ(w.duty, 0.5);
    EXPECT_EQ(w.period_ns, 10'000'000u);
    EXPECT_LE(w.start_ns, w.end_ns);
    if (i > 0) {
      EXPECT_GE(w.start_ns, r.windows[i - 1].end_ns) << i;
    }
  }
}

TEST(TraceWindows, StoppedAtOnceReportsTheFirstWindowWithoutSwitching) {
  Recorded r;
  auto windows = make_windows(r, TraceDuty{.duty = 0.5, .period_ns = 1'000'000'000});
  windows.start();
  windows.stop();
  windows.stop();  // twice is fine
  std::lock_guard lock(r.mutex);
  EXPECT_TRUE(r.switches.empty());
  ASSERT_EQ(r.windows.size(), 1u);
  EXPECT_LE(r.windows[0].start_ns, r.windows[0].end_ns);
}

}  // namespace
}  // namespace cprof::gpu
