// A process sampled with `sample-run --clock wall` has CPU-clock and wall-clock samples side
// by side (process record clock "cpu+wall"). Its profile is one clock's (the wall clock's by
// default, `--clock cpu` for the other), never their sum: before this, a 4.86 s
// single-thread xz run read "9.68 s sampled", its on-CPU code weighing double. Counter
// deltas ride on the CPU-clock samples and keep their totals whichever clock is shown.
#include <gtest/gtest.h>

#include "report/render/render.h"
#include "report/report.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"

namespace cprof::report {
namespace {

using format::SampleClock;
using testing::ProcessWriter;
using testing::TempDir;

constexpr uint64_t kMs = 1'000'000;

// One thread that computes for 5 ms (in `work`) and sleeps for 5 ms (in `nap`): 5 CPU-clock
// samples in work, each with 100 page faults, and 10 wall-clock samples, 5 in each.
void write_wall_run(const std::filesystem::path& dir) {
  ProcessWriter w(dir / "app.host.10.cprof", 10, -1, "cpu+wall");
  w.thread(1, "main");
  w.add(format::EventRecord{.index = 0, .name = "page-faults"});
  for (int i = 0; i < 5; ++i) {
    w.sample(1, {0x1010, 0x3010}, SampleClock::cpu, {100});
    w.sample(1, {0x1010, 0x3010}, SampleClock::wall, {0});
    w.sample(1, {0x2010, 0x3010}, SampleClock::wall, {0});
  }
  w.close();
}

void add_symbols(testing::FakeSymbols& s) {
  s.add(0x1000, 0x1100, {{.function = "work", .file = "/src/a.cpp", .line = 10}});
  s.add(0x2000, 0x2100, {{.function = "nap", .file = "/src/a.cpp", .line = 20}});
  s.add(0x3000, 0x3100, {{.function = "main", .file = "/src/a.cpp", .line = 30}});
}

Report report(const std::filesystem::path& dir, ClockChoice clock, bool timeline = false) {
  testing::FakeSymbols s;
  add_symbols(s);
  return build_report(
      load_results(find_results_files(dir), {.keep_timeline = timeline, .clock = clock}), s,
      {.call_tree = true});
}

uint64_t self_ns(const Report& r, const std::string& function) {
  for (const auto& row : r.flat.functions) {
    if (r.symbols.table.functions[row.id].name == function) return row.self.time_ns;
  }
  return 0;
}

TEST(ReportProfileClock, WallSampledProcessIsAWallProfileByDefault) {
  TempDir dir;
  write_wall_run(dir.path());
  const Report r = report(dir.path(), ClockChoice::automatic);
  ASSERT_EQ(r.processes.size(), 1u);
  const auto& p = r.processes[0];
  EXPECT_EQ(p.clock, SampleClock::wall);
  EXPECT_EQ(p.samples, 10u);
  EXPECT_EQ(p.weight_ns, 10 * kMs);
  EXPECT_EQ(p.other_clock_samples, 5u);
  EXPECT_EQ(p.other_clock_weight_ns, 5 * kMs);
  // 10 ms of a 10 ms thread, not 15: on-CPU time is not counted twice.
  EXPECT_EQ(r.flat.all.time_ns, 10 * kMs);
  EXPECT_EQ(self_ns(r, "work"), 5 * kMs);
  EXPECT_EQ(self_ns(r, "nap"), 5 * kMs);  // blocked time shows
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(p.threads[0].weight_ns, 10 * kMs);
  EXPECT_EQ(p.threads[0].cpu_weight_ns, 5 * kMs);  // the coverage check's, either way
  // The page faults rode on the CPU-clock samples, set aside here: still counted, once.
  ASSERT_EQ(r.counters.events.size(), 1u);
  EXPECT_EQ(r.counters.events[0].total, 500u);
  ASSERT_FALSE(r.counters.functions.empty());
  EXPECT_EQ(r.symbols.table.functions[r.counters.functions[0].function].name, "work");
  EXPECT_EQ(r.counters.functions[0].self[0], 500u);

  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("10 ms sampled (wall clock)"), std::string::npos) << text;
  EXPECT_NE(text.find("profile: wall clock (5 CPU-clock samples, 5 ms, set aside: --clock cpu "
                      "shows them)"),
            std::string::npos)
      << text;
  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("\"profile_clock\": \"wall\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"other_clock_samples\": 5"), std::string::npos) << json;
  const std::string html = render_html(r, {});
  EXPECT_NE(html.find("data-profile-clock=\"wall\""), std::string::npos);
  EXPECT_NE(html.find("10 ms sampled (wall clock)"), std::string::npos);
  const std::string folded = render_folded(r);
  EXPECT_NE(folded.find("main;work 5\n"), std::string::npos) << folded;
  EXPECT_NE(folded.find("main;nap 5\n"), std::string::npos) << folded;
  EXPECT_NE(render_speedscope(r).find("wall clock"), std::string::npos);
  EXPECT_NE(render_pprof(r).size(), 0u);
}

TEST(ReportProfileClock, ClockCpuShowsTheCpuProfileOfTheSameRun) {
  TempDir dir;
  write_wall_run(dir.path());
  const Report r = report(dir.path(), ClockChoice::cpu);
  const auto& p = r.processes[0];
  EXPECT_EQ(p.clock, SampleClock::cpu);
  EXPECT_EQ(p.samples, 5u);
  EXPECT_EQ(p.other_clock_samples, 10u);
  EXPECT_EQ(r.flat.all.time_ns, 5 * kMs);
  EXPECT_EQ(self_ns(r, "work"), 5 * kMs);
  EXPECT_EQ(self_ns(r, "nap"), 0u);
  EXPECT_EQ(r.counters.events[0].total, 500u);  // not lost, not doubled
  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("5 ms sampled (CPU clock)"), std::string::npos) << text;
  EXPECT_NE(text.find("profile: CPU clock (10 wall-clock samples, 10 ms, set aside: --clock wall "
                      "shows them)"),
            std::string::npos)
      << text;
  EXPECT_NE(render_json(r, {}).find("\"profile_clock\": \"cpu\""), std::string::npos);
}

TEST(ReportProfileClock, TimelineHoldsOnlyTheProfilesClock) {
  TempDir dir;
  write_wall_run(dir.path());
  const Report wall = report(dir.path(), ClockChoice::automatic, true);
  EXPECT_EQ(wall.processes[0].timeline.size(), 10u);
  EXPECT_NE(render_chrome(wall).find("\"profile_clock\": \"wall\""), std::string::npos);
  EXPECT_EQ(report(dir.path(), ClockChoice::cpu, true).processes[0].timeline.size(), 5u);
}

// A wall-sampled process that ended before its first sample (a short exec in a shell
// pipeline) is still of the wall clock: a report of such processes is not "mixed".
TEST(ReportProfileClock, WallSampledProcessWithoutSamplesIsOfTheWallClock) {
  TempDir dir;
  write_wall_run(dir.path());
  {
    ProcessWriter w(dir.path() / "app.host.12.cprof", 12, -1, "cpu+wall");
    w.close();
  }
  const Report r = report(dir.path(), ClockChoice::automatic);
  ASSERT_EQ(r.processes.size(), 2u);
  EXPECT_EQ(r.processes[1].clock, SampleClock::wall);
  EXPECT_STREQ(r.clock_kind(), "wall");
  EXPECT_EQ(r.clock_summary(), "wall clock");
}

// A process sampled on the CPU clock alone has nothing to choose: --clock wall keeps its
// CPU profile rather than an empty one, and the header says nothing new.
TEST(ReportProfileClock, CpuOnlyProcessKeepsItsCpuProfile) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.11.cprof", 11);
    w.thread(1, "main");
    for (int i = 0; i < 3; ++i) w.sample(1, {0x1010, 0x3010});
    w.close();
  }
  const Report r = report(dir.path(), ClockChoice::wall);
  EXPECT_EQ(r.processes[0].clock, SampleClock::cpu);
  EXPECT_EQ(r.flat.all.time_ns, 3 * kMs);
  const Report plain = report(dir.path(), ClockChoice::automatic);
  const std::string text = render_text(plain, {});
  EXPECT_EQ(text.find("clock)"), std::string::npos) << text;
  EXPECT_EQ(text.find("profile:"), std::string::npos) << text;
  EXPECT_NE(render_json(plain, {}).find("\"profile_clock\": \"cpu\""), std::string::npos);
}

// Under --clock wall a whole sleep is one sample weighing every period it slept; the
// folded output counts periods, so the flame graph shows the 300 ms sleep 300 wide, not 1.
TEST(ReportProfileClock, FoldedCountsASleepsPeriodsNotItsOneSample) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.13.cprof", 13, -1, "cpu+wall");
    w.thread(1, "main");
    w.sample(1, {0x2010, 0x3010}, SampleClock::wall, {}, 300 * kMs);
    for (int i = 0; i < 20; ++i) w.sample(1, {0x1010, 0x3010}, SampleClock::wall);
    w.sample(1, {0x1010}, SampleClock::wall, {}, kMs / 4);  // a fraction still shows: 1
    w.close();
  }
  const std::string folded = render_folded(report(dir.path(), ClockChoice::automatic));
  EXPECT_EQ(folded, "main;nap 300\nmain;work 20\nwork 1\n");
}

}  // namespace
}  // namespace cprof::report
