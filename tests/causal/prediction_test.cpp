// The prediction math: effective durations, program speedup, Little's law, end-to-end,
// aggregation and the bootstrap interval.
#include "causal/prediction.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cprof::causal {
namespace {

constexpr uint64_t kMs = 1000000;

Observation obs(double s, uint64_t dur_ms, uint64_t delay_ms, uint64_t visits) {
  return Observation{s, dur_ms * kMs, delay_ms * kMs, visits, 0};
}

TEST(Prediction, EffectiveDurationSubtractsTheDelay) {
  EXPECT_EQ(effective_duration_ns(1000, 300), 700.0);
  EXPECT_EQ(effective_duration_ns(100, 300), 0.0);
}

TEST(Prediction, PeriodPerVisitAggregatesOverExperiments) {
  const Observation g[] = {obs(0, 500, 0, 50), obs(0, 1000, 0, 150)};
  EXPECT_DOUBLE_EQ(*period_per_visit(g), 1500.0 * kMs / 200);
  const Observation none[] = {obs(0, 500, 0, 0)};
  EXPECT_FALSE(period_per_visit(none));
  EXPECT_FALSE(period_per_visit({}));
}

// Baseline: 10 ms per visit. At 50%: 600 ms wall with 200 ms of delays -> 400 ms for
// 50 visits = 8 ms per visit: the program is 20% faster.
TEST(Prediction, ProgramSpeedupFromDelayedExperiments) {
  EXPECT_DOUBLE_EQ(program_speedup(10, 8), 0.2);
  EXPECT_DOUBLE_EQ(program_speedup(10, 12), -0.2);
  const Observation base[] = {obs(0, 500, 0, 50)};
  const Observation all[] = {obs(0, 500, 0, 50), obs(0.5, 600, 200, 50)};
  const auto curve = predict_curve(all, base, PredictionOptions{});
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_EQ(curve[0].speedup, 0.0);
  EXPECT_DOUBLE_EQ(curve[0].program_speedup, 0.0);
  EXPECT_EQ(curve[1].speedup, 0.5);
  EXPECT_DOUBLE_EQ(curve[1].program_speedup, 0.2);
  EXPECT_EQ(curve[1].experiments, 1u);
  EXPECT_TRUE(std::isnan(curve[1].ci_low));  // one experiment: no interval
}

TEST(Prediction, NoBaselineNoCurve) {
  const Observation all[] = {obs(0.5, 600, 200, 50)};
  EXPECT_TRUE(predict_curve(all, {}, PredictionOptions{}).empty());
}

// Little's law: 100 departures in 1 s with 5 in flight on average -> 50 ms each.
TEST(Prediction, LatencyByLittlesLaw) {
  const Observation g[] = {Observation{0, 1000 * kMs, 0, 100, 5.0}};
  EXPECT_DOUBLE_EQ(*little_latency_ns(g), 50.0 * kMs);
  // Delays are not the program's time: 1.5 s wall with 0.5 s delay is the same.
  const Observation d[] = {Observation{0, 1500 * kMs, 500 * kMs, 100, 5.0}};
  EXPECT_DOUBLE_EQ(*little_latency_ns(d), 50.0 * kMs);
  // Weighted by effective time across experiments.
  const Observation two[] = {Observation{0, 1000 * kMs, 0, 100, 4.0},
                             Observation{0, 1000 * kMs, 0, 100, 6.0}};
  EXPECT_DOUBLE_EQ(*little_latency_ns(two), 50.0 * kMs);
  const Observation none[] = {Observation{0, 1000 * kMs, 0, 0, 3.0}};
  EXPECT_FALSE(little_latency_ns(none));
}

TEST(Prediction, EndToEndUsesWholeRunTime) {
  const Observation runs[] = {obs(0, 10000, 0, 1), obs(0, 10200, 0, 1), obs(0.3, 9500, 1500, 1),
                              obs(0.3, 9700, 1700, 1)};
  const Observation base[] = {runs[0], runs[1]};
  PredictionOptions o;
  o.metric = Metric::end_to_end;
  const auto curve = predict_curve(runs, base, o);
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_NEAR(curve[1].program_speedup, (10100.0 - 8000.0) / 10100.0, 1e-12);
}

TEST(Prediction, BootstrapIntervalIsSeededAndBracketsTheEstimate) {
  std::vector<Observation> all;
  for (int i = 0; i < 20; ++i) {
    all.push_back(obs(0, 500, 0, 50 + (i % 5)));          // ~10 ms per visit
    all.push_back(obs(0.5, 600, 200, 48 + (i % 7)));      // ~8 ms per visit
  }
  std::vector<Observation> base;
  for (const auto& o : all) {
    if (o.speedup == 0) base.push_back(o);
  }
  PredictionOptions opt;
  const auto a = predict_curve(all, base, opt);
  const auto b = predict_curve(all, base, opt);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].ci_low, b[1].ci_low);  // same seed, same interval
  EXPECT_EQ(a[1].ci_high, b[1].ci_high);
  EXPECT_LT(a[1].ci_low, a[1].program_speedup);
  EXPECT_GT(a[1].ci_high, a[1].program_speedup);
  EXPECT_GT(a[1].ci_low, 0.1);
  EXPECT_LT(a[1].ci_high, 0.3);
  EXPECT_EQ(a[1].experiments, 20u);
  EXPECT_LE(a[0].ci_low, 0.0);
  EXPECT_GE(a[0].ci_high, 0.0);
  opt.seed = 99;
  const auto c = predict_curve(all, base, opt);
  EXPECT_NE(a[1].ci_low, c[1].ci_low);
}

// Four runs of 10+10 experiments each, every run's own speedup steady within it but the
// runs apart (x264 on this VM: 29%, 23%, 19%, 6% in four runs of one fixed speedup). The
// interval must count the runs' spread: one run more or less moves the estimate by more
// than the spread between one run's experiments says.
std::vector<Observation> runs_apart(uint32_t runs_count) {
  const uint64_t sped_ms[] = {700, 770, 810, 940};  // 30%, 23%, 19%, 6% faster than 1000
  std::vector<Observation> all;
  for (uint32_t r = 0; r < 4; ++r) {
    for (int i = 0; i < 10; ++i) {
      Observation b = obs(0, 1000 + (i % 3) * 5, 0, 100);
      Observation g = obs(0.9, sped_ms[r] + 300 + (i % 3) * 5, 300, 100);
      b.run = g.run = r % runs_count;
      all.push_back(b);
      all.push_back(g);
    }
  }
  return all;
}

std::vector<Observation> baselines_of(const std::vector<Observation>& all) {
  std::vector<Observation> base;
  for (const auto& o : all) {
    if (o.speedup == 0) base.push_back(o);
  }
  return base;
}

TEST(Prediction, ExperimentsFromSeveralRunsAreResampledRunByRun) {
  const auto by_run = runs_apart(4);
  const auto one_run = runs_apart(1);  // the same experiments, told as one run
  const auto a = predict_curve(by_run, baselines_of(by_run), {});
  const auto b = predict_curve(one_run, baselines_of(one_run), {});
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_DOUBLE_EQ(a[1].program_speedup, b[1].program_speedup);  // the estimate is the same
  // One stage: 10 experiments at each of 4 levels look like a tight 19.5% +- 3.5.
  EXPECT_GT(b[1].ci_low, 0.15);
  EXPECT_LT(b[1].ci_high, 0.24);
  // Two stages: drawing the runs moves it from about 10% to about 27%.
  EXPECT_LT(a[1].ci_low, 0.13);
  EXPECT_GT(a[1].ci_high, 0.25);
  EXPECT_GT(a[1].ci_high - a[1].ci_low, 2 * (b[1].ci_high - b[1].ci_low));
  EXPECT_LT(a[1].ci_low, a[1].program_speedup);
  EXPECT_GT(a[1].ci_high, a[1].program_speedup);
  // Each point says how many runs its interval rests on (the report's few-runs note).
  EXPECT_EQ(a[1].runs, 4u);
  EXPECT_EQ(b[1].runs, 1u);
}

TEST(Prediction, TwoRunsAreTooFewToResampleByRun) {
  const auto two = runs_apart(2);
  const auto one = runs_apart(1);
  const auto a = predict_curve(two, baselines_of(two), {});
  const auto b = predict_curve(one, baselines_of(one), {});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].ci_low, b[1].ci_low);
  EXPECT_EQ(a[1].ci_high, b[1].ci_high);
}

format::ExperimentRecord whole_run(const std::string& location, double speedup, uint64_t time_s,
                                   uint64_t duration_ms, uint64_t delay_ms) {
  format::ExperimentRecord r;
  r.location = location;
  r.mode = format::ExperimentMode::end_to_end;
  r.speedup = speedup;
  r.time_ns = time_s * 1000 * kMs;
  r.duration_ns = duration_ms * kMs;
  r.delay_ns = delay_ms * kMs;
  r.period_ns = 1000000;
  return r;
}

TEST(Prediction, EachSpedUpRunPairsWithTheBaselineJustBeforeIt) {
  const std::vector<Observation> runs = {
      {.speedup = 0, .duration_ns = 100, .time_ns = 1},
      {.speedup = 0.5, .duration_ns = 90, .time_ns = 2},
      {.speedup = 0, .duration_ns = 200, .time_ns = 3},
      {.speedup = 0.5, .duration_ns = 180, .time_ns = 4},
      {.speedup = 0.5, .duration_ns = 70, .time_ns = 5},   // its baseline was taken already
      {.speedup = 0.5, .duration_ns = 70, .time_ns = 0}};  // no time: no partner
  std::vector<Observation> unpaired;
  const auto pairs = pair_runs(runs, unpaired);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].baseline.duration_ns, 100u);
  EXPECT_EQ(pairs[0].sped_up.duration_ns, 90u);
  EXPECT_EQ(pairs[1].baseline.duration_ns, 200u);
  EXPECT_EQ(pairs[1].sped_up.duration_ns, 180u);
  EXPECT_EQ(unpaired.size(), 2u);
}

// The machine slows down run after run (load came and went); each sped-up run is 10%
// faster than the baseline just before it. Against every baseline of the directory the
// estimate swings with the drift; pair by pair it is 10%, and the interval is narrow.
TEST(Prediction, EndToEndRunsArePredictedPairByPair) {
  std::vector<format::ExperimentRecord> rs;
  const uint64_t base_ms[] = {1000, 3000, 1500, 6000, 1200, 2500};
  uint64_t t = 1;
  for (const uint64_t b : base_ms) {
    rs.push_back(whole_run("main", 0, t++, b, 0));
    rs.push_back(whole_run("main", 0.2, t++, b * 9 / 10 + 100, 100));
  }
  PredictionOptions pooled;
  pooled.pooled_baseline = true;
  const auto all = predict_all(rs, pooled);
  ASSERT_EQ(all.size(), 1u);
  ASSERT_EQ(all[0].points.size(), 2u);
  const auto& p = all[0].points[1];
  EXPECT_NEAR(p.program_speedup, 0.1, 1e-9);
  EXPECT_NEAR(p.ci_low, 0.1, 1e-9);
  EXPECT_NEAR(p.ci_high, 0.1, 1e-9);
  EXPECT_EQ(p.experiments, 6u);
}

TEST(Prediction, PredictAllGroupsByLocationAndPoint) {
  auto rec = [](std::string loc, double s, uint64_t dur_ms, uint64_t delay_ms, uint64_t visits,
                uint64_t begin, uint64_t end, double in_flight) {
    format::ExperimentRecord r;
    r.location = std::move(loc);
    r.speedup = s;
    r.duration_ns = dur_ms * kMs;
    r.delay_ns = delay_ms * kMs;
    r.progress = {{"work", visits, 0, 0, 0}, {"txn", 0, begin, end, in_flight}};
    return r;
  };
  std::vector<format::ExperimentRecord> rs = {
      rec("a.cpp:1", 0, 500, 0, 50, 100, 100, 5), rec("a.cpp:1", 0.5, 600, 200, 50, 100, 100, 4),
      rec("b.cpp:2", 0, 500, 0, 50, 100, 100, 5), rec("b.cpp:2", 0.5, 500, 0, 50, 100, 100, 5),
      rec("c.cpp:3", 0.5, 500, 0, 50, 100, 100, 5)};  // no baseline of its own
  format::ExperimentRecord e2e;
  e2e.location = "main";
  e2e.mode = format::ExperimentMode::end_to_end;
  e2e.duration_ns = 1000 * kMs;
  rs.push_back(e2e);
  e2e.speedup = 0.2;
  e2e.delay_ns = 100 * kMs;
  rs.push_back(e2e);

  const auto all = predict_all(rs, PredictionOptions{});
  ASSERT_EQ(all.size(), 5u);  // a: txn, work; b: txn, work; main: end-to-end
  EXPECT_EQ(all[0].location, "a.cpp:1");
  EXPECT_EQ(all[0].progress_point, "txn");
  // Latency: baseline 5 in flight / (100 per 0.5 s) = 25 ms; sped up: 4 / (100 per
  // 0.4 s) = 16 ms: 36% lower.
  EXPECT_NEAR(all[0].points[1].program_speedup, 0.36, 1e-12);
  EXPECT_EQ(all[1].progress_point, "work");
  EXPECT_NEAR(all[1].points[1].program_speedup, 0.2, 1e-12);
  EXPECT_EQ(all[3].location, "b.cpp:2");
  EXPECT_NEAR(all[3].points[1].program_speedup, 0.0, 1e-12);
  EXPECT_EQ(all[4].location, "main");
  EXPECT_EQ(all[4].progress_point, "");
  EXPECT_NEAR(all[4].points[1].program_speedup, 0.1, 1e-12);
  // The speedups every record used, 0.5 and 0.2, on every curve (the report's minimum
  // evidence asks a curve for no more than the run had).
  for (const auto& c : all) EXPECT_EQ(c.speedups_in_run, 2u) << c.location;

  PredictionOptions pooled;
  pooled.pooled_baseline = true;
  const auto p = predict_all(rs, pooled);
  ASSERT_EQ(p.size(), 7u);  // c.cpp:3 now has the pooled baseline
  EXPECT_EQ(p[4].location, "c.cpp:3");
}

}  // namespace
}  // namespace cprof::causal
