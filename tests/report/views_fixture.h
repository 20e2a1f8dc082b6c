#pragma once
// A small two-process, two-rank profile with inline frames, counters (two counted, one
// unavailable) and metrics, for the views' and the formats' tests:
//
//   rank 0, pid 100: thread 1 "main"   3 x main > work              cycles 1000, instructions 2000
//   each
//                    thread 2 "worker" 1 x main > compute > helper  cycles 1000, instructions 500
//   rank 1, pid 101: thread 7 "main"   3 x main > compute > helper
//
// helper is inlined into compute (one address, two frames). Samples are 1 ms apart.

#include <filesystem>

#include "report/load/loader.h"
#include "report/report.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"

namespace cprof::report::testing {

inline constexpr uint64_t kViewsMs = 1'000'000;

inline void write_views_results(const std::filesystem::path& dir) {
  uint64_t time = 1'100'000'000;
  const auto sample = [&](ProcessWriter& w, int64_t tid, std::vector<uint64_t> frames,
                          std::vector<uint64_t> counters) {
    for (auto& f : frames) f += kLoadBias;
    time += kViewsMs;
    w.add(format::SampleRecord{.tid = tid,
                               .time_ns = time,
                               .weight_ns = kViewsMs,
                               .frames = std::move(frames),
                               .counter_deltas = std::move(counters)});
  };
  {
    ProcessWriter w(dir / "app.host.100.rank0.cprof", 100, 0);
    w.thread(1, "main");
    w.thread(2, "worker");
    w.add(format::EventRecord{
        .index = 0, .name = "cycles", .canonical_name = "PERF_COUNT_HW_CPU_CYCLES"});
    w.add(format::EventRecord{.index = 1, .name = "instructions"});
    w.add(format::EventRecord{.index = 2,
                              .name = "cache-misses",
                              .status = format::EventStatus::unavailable,
                              .detail = "perf_event_open: No such file or directory"});
    w.add(format::MetricRecord{.time_ns = 1'000'000'000, .rss_bytes = 10'000'000});
    for (int i = 0; i < 3; ++i) sample(w, 1, {0x1010, 0x3011}, {1000, 2000, 0});
    sample(w, 2, {0x2010, 0x3011}, {1000, 500, 0});
    w.add(format::MetricRecord{.time_ns = 1'500'000'000,
                               .rss_bytes = 20'000'000,
                               .cpu_user_ns = 400'000'000,
                               .cpu_system_ns = 100'000'000,
                               .minor_faults = 100,
                               .major_faults = 2,
                               .voluntary_switches = 5,
                               .involuntary_switches = 7,
                               .threads = 2});
  }
  {
    ProcessWriter w(dir / "app.host.101.rank1.cprof", 101, 1);
    w.thread(7, "main");
    for (int i = 0; i < 3; ++i) sample(w, 7, {0x2010, 0x3011}, {});
  }
}

inline void add_views_symbols(FakeSymbols& symbols) {
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
  symbols.add(0x2000, 0x2100,
              {{.function = "helper<int>", .file = "/src/h.h", .line = 5},
               {.function = "compute", .file = "/src/c.cpp", .line = 20}});
  symbols.add(0x3000, 0x3100, {{.function = "main", .file = "/src/m.cpp", .line = 30}});
}

inline Report views_report(const std::filesystem::path& dir, bool tree = true,
                           bool timeline = false) {
  write_views_results(dir);
  FakeSymbols symbols;
  add_views_symbols(symbols);
  return build_report(load_results(find_results_files(dir), {.keep_timeline = timeline}), symbols,
                      {.call_tree = tree});
}

}  // namespace cprof::report::testing
