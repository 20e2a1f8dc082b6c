// Adaptive allocation over the runs of an automatic causal-run: which locations the next
// run experiments on.
#include "causal/experiment_focus.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cprof::causal {
namespace {

constexpr uint64_t kMs = 1000000;

format::ExperimentRecord experiment(const std::string& location, double speedup, uint64_t visits,
                                    uint64_t selected_samples = 10) {
  format::ExperimentRecord r;
  r.location = location;
  r.speedup = speedup;
  r.duration_ns = 1000 * kMs;
  r.selected_samples = selected_samples;
  r.progress = {{"work", visits, 0, 0, 0}};
  return r;
}

// A curve with the minimum evidence: 4 baselines and 3 experiments at each of 25, 50 and
// 75%, whose visits are `visits(speedup, i)`.
template <typename Visits>
void add_curve(std::vector<format::ExperimentRecord>& rs, const std::string& location,
               Visits visits, uint64_t selected_samples = 10) {
  for (uint64_t i = 0; i < 4; ++i)
    rs.push_back(experiment(location, 0, visits(0.0, i), selected_samples));
  for (const double s : {0.25, 0.5, 0.75}) {
    for (uint64_t i = 0; i < 3; ++i)
      rs.push_back(experiment(location, s, visits(s, i), selected_samples));
  }
}

TEST(ExperimentFocus, RanksLocationsWithoutACurveByHowMuchTheyRun) {
  // One experiment each: too few to rank by draw counts; the samples on the stack per
  // second of experiment tell how much each runs.
  const std::vector<format::ExperimentRecord> rs = {experiment("rare.c:1", 0, 100, 2),
                                                    experiment("hot.c:2", 0.5, 100, 400),
                                                    experiment("warm.c:3", 0.25, 100, 90)};
  const FocusChoice c = choose_focus(rs, 2, {});
  EXPECT_EQ(c.locations, (std::vector<std::string>{"hot.c:2", "warm.c:3"}));
  EXPECT_TRUE(c.settled.empty());
  EXPECT_EQ(c.with_enough_evidence, 0u);
}

TEST(ExperimentFocus, ALocationThatRanInOneBurstRanksBelowOneThatRunsSteadily) {
  // zstd's table clearing: 98 samples in the experiment that caught its burst, none in the
  // others (their experiments measure nothing); a steady loop: 20 in each. Pooled, the
  // burst ran more (98 against 60 in 3 s); in most of its experiments it did not run.
  const std::vector<format::ExperimentRecord> rs = {
      experiment("burst.c:1", 0, 100, 98),    experiment("burst.c:1", 0.5, 100, 0),
      experiment("burst.c:1", 0, 100, 0),     experiment("steady.c:2", 0, 100, 20),
      experiment("steady.c:2", 0.5, 100, 20), experiment("steady.c:2", 0, 100, 20)};
  EXPECT_EQ(choose_focus(rs, 1, {}).locations, (std::vector<std::string>{"steady.c:2"}));
}

TEST(ExperimentFocus, ALocationShownToHaveNoEffectIsSettledAndDropped) {
  std::vector<format::ExperimentRecord> rs;
  // The same progress whatever the speedup, a visit of jitter: no effect, tightly known.
  add_curve(
      rs, "flat.c:7", [](double, uint64_t i) { return 1000 + i % 2; }, 900);
  rs.push_back(experiment("other.c:1", 0.5, 100, 5));
  const FocusChoice c = choose_focus(rs, 4, {});
  EXPECT_EQ(c.settled, (std::vector<std::string>{"flat.c:7"}));
  EXPECT_EQ(c.locations, (std::vector<std::string>{"other.c:1"}));
  EXPECT_EQ(c.with_enough_evidence, 1u);
  EXPECT_EQ(c.with_effect, 0u);
}

TEST(ExperimentFocus, ALocationWithAnEffectComesFirstHoweverLittleItRuns) {
  std::vector<format::ExperimentRecord> rs;
  // Sped up by s, the program makes (1 + s) times the progress: a clear effect.
  add_curve(
      rs, "lever.c:3",
      [](double s, uint64_t i) { return static_cast<uint64_t>(100 * (1 + s)) + i % 2; }, 1);
  rs.push_back(experiment("busy.c:9", 0, 100, 900));
  const FocusChoice c = choose_focus(rs, 1, {});
  EXPECT_EQ(c.locations, (std::vector<std::string>{"lever.c:3"}));
  EXPECT_EQ(c.with_effect, 1u);
}

TEST(ExperimentFocus, TheFocusOnlyNarrows) {
  // The last run focused on a and b: c, drawn in the screening run, does not come back.
  const std::vector<format::ExperimentRecord> rs = {experiment("a.c:1", 0, 100, 10),
                                                    experiment("b.c:2", 0, 100, 20),
                                                    experiment("c.c:3", 0, 100, 500)};
  const std::vector<std::string> previous = {"a.c:1", "b.c:2"};
  const FocusChoice c = choose_focus(rs, 4, previous);
  EXPECT_EQ(c.locations, (std::vector<std::string>{"b.c:2", "a.c:1"}));
}

TEST(ExperimentFocus, EndToEndRecordsAreNotFocusedOn) {
  format::ExperimentRecord e2e = experiment("main", 0, 0, 100);
  e2e.mode = format::ExperimentMode::end_to_end;
  const std::vector<format::ExperimentRecord> rs = {e2e};
  EXPECT_TRUE(choose_focus(rs, 4, {}).locations.empty());
}

}  // namespace
}  // namespace cprof::causal
