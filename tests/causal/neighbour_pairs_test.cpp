// Throughput predictions for programs whose rate of progress changes in phases
// (causal/neighbour_pairs.h), through predict_all as the report calls it.
#include "causal/neighbour_pairs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "causal/rng.h"

namespace cprof::causal {
namespace {

constexpr uint64_t kMs = 1000000;

// An experiment of 100 ms at `time_ms` on a.cpp:1, whose program makes a visit every
// `us_per_visit` microseconds of its effective time; a sped-up one (speedup s) inserted
// delays that the sped-up program did not need: its effective time per visit is
// (1 - gain) of the baseline's.
format::ExperimentRecord experiment(uint64_t time_ms, double speedup, double us_per_visit,
                                    double gain) {
  format::ExperimentRecord r;
  r.time_ns = time_ms * kMs;
  r.location = "a.cpp:1";
  r.speedup = speedup;
  r.duration_ns = 100 * kMs;
  r.period_ns = kMs;
  const double effective_ns = speedup > 0 ? 80.0 * kMs : 100.0 * kMs;
  r.delay_ns = r.duration_ns - static_cast<uint64_t>(effective_ns);
  const double ns_per_visit = us_per_visit * 1000.0 * (speedup > 0 ? 1.0 - gain : 1.0);
  r.progress = {
      {"work", static_cast<uint64_t>(std::llround(effective_ns / ns_per_visit)), 0, 0, 0}};
  return r;
}

const PredictionPoint& point_at(const std::vector<LocationPrediction>& all, double speedup) {
  static const PredictionPoint none;
  for (const auto& l : all) {
    for (const auto& p : l.points) {
      if (p.speedup == speedup) return p;
    }
  }
  ADD_FAILURE() << "no point at " << speedup;
  return none;
}

// A benchmark of tests that run 1 s each (ten 100 ms experiments), three rounds of eight
// tests at a time per visit from 2 us to 2 ms; a sped-up experiment (at 50%) makes progress
// 20% faster than the baseline around it. In the fast half an experiment is sped up with
// probability `fast_percent`, in the slow half `slow_percent`. After each experiment
// `after(records, time_ms, round, test, experiment)` may add experiments of its own.
constexpr double kTestUs[] = {2, 2000, 20, 200, 5, 500, 50, 1000};

template <typename After>
std::vector<format::ExperimentRecord> phased_benchmark(uint32_t fast_percent, uint32_t slow_percent,
                                                       After after) {
  std::vector<format::ExperimentRecord> records;
  Rng rng(3);
  uint64_t t = 0;
  for (int round = 0; round < 3; ++round) {
    for (size_t test = 0; test < std::size(kTestUs); ++test) {
      for (int e = 0; e < 10; ++e, t += 100) {
        const bool slow = kTestUs[test] >= 200;
        const bool sped = rng.below(100) < (slow ? slow_percent : fast_percent);
        records.push_back(experiment(t, sped ? 0.5 : 0, kTestUs[test], 0.20));
        after(records, t, round, test, e);
      }
    }
  }
  return records;
}

// A benchmark of tests that run 1 s each, at a time per visit from 2 us to 2 ms; the
// sped-up experiments make progress 20% faster than the baseline around them. The draw
// of which experiments are sped up fell unevenly on the slow tests (as a random one can),
// so pooled over the run the point is far off; compared with their neighbours, 20%.
TEST(NeighbourPairs, PhasesOfDifferentRatesGiveTheGainWithinEachPhase) {
  // In the slow half, sped-up experiments a little more often.
  const auto records = phased_benchmark(40, 60, [](auto&, uint64_t&, int, size_t, int) {});
  PredictionOptions options;
  options.pooled_baseline = true;
  const auto all = predict_all(records, options);
  const PredictionPoint& p = point_at(all, 0.5);
  EXPECT_GT(p.neighbour_units, 20u);
  EXPECT_GT(p.at_rate_changes, 0u);  // those next to a change of test
  EXPECT_NEAR(p.program_speedup, 0.20, 1e-9);
  EXPECT_LT(p.ci_low, 0.20 + 1e-9);
  EXPECT_GT(p.ci_high, 0.20 - 1e-9);
  EXPECT_LT(p.ci_high - p.ci_low, 0.01);
  // Pooled (what the report gave before), the same experiments say something else.
  std::vector<Observation> base, sped;
  for (const auto& r : records) {
    (r.speedup > 0 ? sped : base)
        .push_back(Observation{r.speedup, r.duration_ns, r.delay_ns, r.progress[0].visits});
  }
  const double pooled = program_speedup(*period_per_visit(base), *period_per_visit(sped));
  EXPECT_GT(std::abs(pooled - 0.20), 0.1) << pooled;
}

// Where the rate changes in phases, a location without enough sped-up experiments whose
// neighbours agree has no curve: compared with its own baselines wherever they fell, one
// sped-up experiment in a slow test and one baseline in a fast one said the program
// would be hundreds of times slower (speedtest1: "slow the program down by about
// 1068387%"). It is named, with its counts, for the report to say why.
TEST(NeighbourPairs, ALocationWithoutEnoughNeighbourUnitsHasNoCurve) {
  const auto records =
      phased_benchmark(50, 50, [](auto& out, uint64_t& t, int round, size_t test, int e) {
        if (round != 0 || e != 5 || test > 1) return;
        // b.cpp:2: its baseline in the fastest test, its sped-up experiment in the slowest.
        t += 100;
        out.push_back(experiment(t, test == 1 ? 0.5 : 0, kTestUs[test], 0.20));
        out.back().location = "b.cpp:2";
      });
  std::vector<PhasedWithoutUnits> phased;
  const auto all = predict_all(records, PredictionOptions{}, {}, &phased);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].location, "a.cpp:1");
  EXPECT_NEAR(point_at(all, 0.5).program_speedup, 0.20, 1e-9);
  ASSERT_EQ(phased.size(), 1u);
  EXPECT_EQ(phased[0].location, "b.cpp:2");
  EXPECT_EQ(phased[0].progress_point, "work");
  EXPECT_EQ(phased[0].sped_up, 1u);
  EXPECT_LT(phased[0].units, kMinExperimentsPerPoint);
}

// Units enough in all but spread over speedups, fewer than 3 at each: still no curve, and
// the counts say so (the report said "6 of its 9 sped-up experiments had two that agree,
// fewer than the 3 a speedup needs" of a SQLite extension's line: 6 is not fewer than 3).
TEST(NeighbourPairs, UnitsSpreadOverSpeedupsAreCountedPerSpeedup) {
  const auto records =
      phased_benchmark(0, 0, [](auto& out, uint64_t& t, int round, size_t test, int e) {
        if (round != 0 || test != 2 || e < 1 || e > 5) return;
        t += 100;  // its own baseline, then two sped-up experiments at each of 25% and 50%
        out.push_back(experiment(t, e == 1 ? 0 : e < 4 ? 0.25 : 0.5, kTestUs[test], 0.20));
        out.back().location = "b.cpp:2";
      });
  std::vector<PhasedWithoutUnits> phased;
  const auto all = predict_all(records, PredictionOptions{}, {}, &phased);
  ASSERT_EQ(phased.size(), 1u);
  EXPECT_EQ(phased[0].location, "b.cpp:2");
  EXPECT_EQ(phased[0].sped_up, 4u);
  EXPECT_EQ(phased[0].units, 4u);
  EXPECT_EQ(phased[0].speedups, 2u);
  EXPECT_EQ(phased[0].most_units, 2u);
}

// A steady program: the time per visit moves by a few percent from one experiment to the
// next. No phases: the pooled point stays, neighbours unused.
TEST(NeighbourPairs, AProgramWithoutPhasesKeepsThePooledPoint) {
  std::vector<format::ExperimentRecord> records;
  Rng rng(5);
  for (uint64_t i = 0; i < 60; ++i) {
    const double us = 100.0 * (0.95 + 0.1 * static_cast<double>(rng.below(1000)) / 1000.0);
    records.push_back(experiment(i * 100, i % 2 == 1 ? 0.5 : 0, us, 0.10));
  }
  const auto all = predict_all(records, PredictionOptions{});
  const PredictionPoint& p = point_at(all, 0.5);
  EXPECT_EQ(p.neighbour_units, 0u);
  EXPECT_NEAR(p.program_speedup, 0.10, 0.03);
}

// A rate that changes at every experiment (alternating, as two kinds of work interleaved
// at the experiments' own rhythm) is not a phase: neighbours differ as much as any two.
TEST(NeighbourPairs, ARateThatChangesAtEveryExperimentIsNotAPhase) {
  std::vector<Observation> baselines;
  for (uint64_t i = 0; i < 40; ++i) {
    baselines.push_back(
        Observation{0, 100 * kMs, 0, i % 2 == 0 ? 1000u : 50000u, 0, true, (i + 1) * 100 * kMs, 0});
  }
  EXPECT_FALSE(rate_changes_in_phases(baselines));
  // The same rates in two long phases are.
  for (uint64_t i = 0; i < 40; ++i) baselines[i].visits = i < 20 ? 1000 : 50000;
  EXPECT_TRUE(rate_changes_in_phases(baselines));
}

// Units come from one run each: a baseline of another run is no neighbour, and a sped-up
// experiment with a baseline on one side only has none.
TEST(NeighbourPairs, NeighboursAreOfTheSameRunAndOnBothSides) {
  const auto obs = [](double s, uint64_t t, uint64_t visits, uint32_t run) {
    return Observation{s, 100 * kMs, 0, visits, 0, true, t * kMs, run};
  };
  const std::vector<Observation> baselines = {obs(0, 100, 1000, 1), obs(0, 300, 1000, 2),
                                              obs(0, 500, 1000, 1), obs(0, 700, 4000, 1)};
  const std::vector<Observation> group = {obs(0.5, 200, 1100, 1), obs(0.5, 400, 1100, 1),
                                          obs(0.5, 600, 1100, 1), obs(0.5, 800, 1100, 1),
                                          obs(0.5, 350, 1100, 2)};
  uint32_t at_changes = 0;
  const auto units = neighbour_units(group, baselines, at_changes);
  ASSERT_EQ(units.size(), 2u);  // 200 and 400, between 100 and 500 of run 1
  EXPECT_EQ(units[0].before.time_ns, 100 * kMs);
  EXPECT_EQ(units[1].after.time_ns, 500 * kMs);
  EXPECT_EQ(at_changes, 1u);  // 600: between 1000 and 4000 visits
}

}  // namespace
}  // namespace cprof::causal
