// causal-report --pid and --thread: the profile of some processes or threads only, their
// samples renumbered with their threads, the rest dropped, and the report says so.
#include "report/load/thread_filter.h"

#include <gtest/gtest.h>

#include "report/render/render.h"
#include "report/report.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"

namespace cprof::report {
namespace {

using testing::ProcessWriter;
using testing::TempDir;

// Process 5: main (1 sample), worker-1 (2), worker-2 (3), the workers renamed after they
// began; process 6: thread 7 "other" (4 samples).
LoadResult load_two_processes(const std::filesystem::path& dir) {
  {
    ProcessWriter w(dir / "app.host.5.cprof", 5);
    w.thread(1, "main");
    w.thread(2, "app");
    w.thread(3, "app");
    w.sample(1, {0x1010});
    for (int i = 0; i < 2; ++i) w.sample(2, {0x2010, 0x3010});
    for (int i = 0; i < 3; ++i) w.sample(3, {0x2010});
    w.add(format::ThreadNameRecord{.tid = 2, .time_ns = 1'600'000'000, .name = "worker-1"});
    w.add(format::ThreadNameRecord{.tid = 3, .time_ns = 1'600'000'000, .name = "worker-2"});
  }
  {
    ProcessWriter w(dir / "app.host.6.cprof", 6);
    w.thread(7, "other");
    for (int i = 0; i < 4; ++i) w.sample(7, {0x1010});
  }
  return load_results(find_results_files(dir));
}

uint64_t samples_of_thread(const ProcessProfile& p, const std::string& name) {
  uint64_t n = 0;
  for (const auto& c : p.counts) n += p.threads.at(c.thread).name == name ? c.samples : 0;
  return n;
}

TEST(ThreadFilter, ANamePatternKeepsItsThreadsWithTheirSamples) {
  TempDir dir;
  LoadResult loaded = load_two_processes(dir.path());
  const std::string line = apply_thread_filter(loaded, {.threads = {"worker-*"}});
  EXPECT_EQ(line, "--thread 'worker-*': 1 of 2 processes, 2 of 4 threads, 5 of 10 samples");
  ASSERT_EQ(loaded.processes.size(), 1u);
  const auto& p = loaded.processes[0];
  EXPECT_EQ(p.process.pid, 5);
  ASSERT_EQ(p.threads.size(), 2u);
  EXPECT_EQ(p.samples, 5u);
  EXPECT_EQ(p.weight_ns, 5'000'000u);
  EXPECT_EQ(samples_of_thread(p, "worker-1"), 2u);
  EXPECT_EQ(samples_of_thread(p, "worker-2"), 3u);
}

TEST(ThreadFilter, TidsAndPidsSelectTooAndTheReportSaysWhatItShows) {
  TempDir dir;
  LoadResult by_tid = load_two_processes(dir.path());
  apply_thread_filter(by_tid, {.threads = {"7", "1"}});
  ASSERT_EQ(by_tid.processes.size(), 2u);
  EXPECT_EQ(by_tid.processes[0].samples, 1u);  // main of process 5
  EXPECT_EQ(by_tid.processes[1].samples, 4u);

  LoadResult by_pid = load_two_processes(dir.path());
  by_pid.filter = apply_thread_filter(by_pid, {.pids = {6}});
  ASSERT_EQ(by_pid.processes.size(), 1u);
  EXPECT_EQ(by_pid.processes[0].threads.size(), 1u);
  testing::FakeSymbols s;
  s.add(0x1000, 0x1100, {{.function = "work", .file = "/src/a.cpp", .line = 10}});
  const Report r = build_report(std::move(by_pid), s);
  EXPECT_EQ(r.samples(), 4u);
  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("\n  only --pid 6: 1 of 2 processes, 1 of 4 threads, 4 of 10 samples\n"),
            std::string::npos)
      << text;
  EXPECT_NE(render_json(r, {}).find("\"filter\": \"--pid 6: 1 of 2 processes"), std::string::npos);

  LoadResult none = load_two_processes(dir.path());
  apply_thread_filter(none, {.threads = {"nobody"}});
  EXPECT_TRUE(none.processes.empty());
}

TEST(ThreadFilter, EmptyFilterKeepsEverythingAndSaysNothing) {
  TempDir dir;
  LoadResult loaded = load_two_processes(dir.path());
  EXPECT_EQ(apply_thread_filter(loaded, {}), "");
  EXPECT_EQ(loaded.processes.size(), 2u);
  EXPECT_EQ(loaded.processes[0].threads.size(), 3u);
}

}  // namespace
}  // namespace cprof::report
