#pragma once
// A causal run for the report's tests, written with the real ResultsWriter: one process,
// two locations with baselines and three speedups each, a throughput point ("ops") and
// a latency point ("req"), a timed region, and a few samples. Durations carry a fixed
// pseudo-random jitter, so the bootstrap intervals have width and the HTML band an area.
//
// "hot<int>::run" speeds the program up by half the line speedup, "cold.cpp:7" by a
// tenth: ranked by impact, hot comes first although "cold" sorts first by name.

#include <filesystem>
#include <string>

#include "format/records.h"
#include "report/load/loader.h"
#include "report/report.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"

namespace cprof::report::testing {

inline constexpr const char* kHotLocation = "hot<int>::run";
inline constexpr const char* kColdLocation = "cold.cpp:7";

inline std::vector<format::ExperimentRecord> causal_fixture_experiments() {
  std::vector<format::ExperimentRecord> out;
  uint64_t seed = 12345, time = 1'100'000'000;
  const auto jitter = [&seed] {  // in [-0.02, 0.02], an LCG so every platform agrees
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (static_cast<double>(seed >> 11) / 9007199254740992.0 - 0.5) * 0.04;
  };
  for (const auto& [location, effect] :
       {std::pair{kColdLocation, 0.1}, std::pair{kHotLocation, 0.5}}) {
    for (const double s : {0.0, 0.0, 0.0, 0.0, 0.25, 0.25, 0.25, 0.5, 0.5, 0.5, 0.75, 0.75, 0.75}) {
      const uint64_t wall = 1'000'000'000;
      // The virtual speedup's pauses: a share of the time above the effect they can
      // explain (PredictionPoint::delay_share).
      const uint64_t delay = static_cast<uint64_t>(1e9 * s * (effect + 0.1));
      const double effective = static_cast<double>(wall - delay);
      const double period = 1e6 * (1 - effect * s) * (1 + jitter());  // ns per ops visit
      const auto visits = static_cast<uint64_t>(effective / period);
      format::ExperimentRecord e{.time_ns = time,
                                 .location = location,
                                 .location_id = location == kHotLocation ? 2u : 1u,
                                 .speedup = s,
                                 .duration_ns = wall,
                                 .delay_ns = delay,
                                 .period_ns = 1'000'000,
                                 .selected_samples = 40};
      e.progress.push_back({.name = "ops", .visits = visits});
      // Latency point: departures as many as visits, in flight 2 less the speedup's effect.
      e.progress.push_back({.name = "req",
                            .begin = visits + 1,
                            .end = visits,
                            .mean_in_flight = 2.0 * (1 - effect * s) * (1 + jitter())});
      out.push_back(std::move(e));
      time += wall + 10'000'000;
    }
  }
  return out;
}

// results/app.host.PID.cprof with the experiments above, their points and a region.
inline void write_causal_results(const std::filesystem::path& dir, int64_t pid = 300) {
  ProcessWriter w(dir / ("app.host." + std::to_string(pid) + ".cprof"), pid);
  w.thread(1, "main");
  for (int i = 0; i < 4; ++i) w.sample(1, {0x1010, 0x3010}, 1'000'000, 1'200'000'000 + i * 1'000'000);
  w.add(format::ProgressPointRecord{.id = 1, .name = "ops", .source = format::ProgressPointSource::coz});
  w.add(format::ProgressPointRecord{
      .id = 2, .name = "req", .kind = format::ProgressPointKind::latency});
  for (auto& e : causal_fixture_experiments()) w.add(e);
  w.add(format::RegionRecord{.name = "req",
                             .time_ns = 30'000'000'000,
                             .count = 4,
                             .mean_ns = 2'500'000,
                             .stddev_ns = 1'290'994.4487358056,
                             .min_ns = 1'000'000,
                             .max_ns = 4'000'000});
  w.close();
}

inline void add_causal_symbols(FakeSymbols& symbols) {
  symbols.add(0x1000, 0x1100, {{.function = "work", .file = "/src/w.cpp", .line = 10}});
  symbols.add(0x3000, 0x3100, {{.function = "main", .file = "/src/m.cpp", .line = 30}});
}

inline Report causal_report(const std::filesystem::path& dir, bool timeline = false) {
  write_causal_results(dir);
  FakeSymbols symbols;
  add_causal_symbols(symbols);
  return build_report(load_results(find_results_files(dir), {.keep_timeline = timeline}), symbols,
                      {.call_tree = true});
}

}  // namespace cprof::report::testing
