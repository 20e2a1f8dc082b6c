// Automatic end to end: a pair of runs stays on a location until its runs meet the
// minimum evidence (causal/end_to_end_stay.h).
#include "causal/end_to_end_stay.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cprof::causal {
namespace {

using format::ExperimentMode;
using format::ExperimentRecord;

// One end-to-end run of `location` at `speedup`, begun at `time_ns`: a second of wall
// time, the delay a sped-up run inserts.
ExperimentRecord run_of(const std::string& location, double speedup, uint64_t time_ns) {
  ExperimentRecord r;
  r.time_ns = time_ns;
  r.location = location;
  r.speedup = speedup;
  r.duration_ns = 1'000'000'000;
  r.delay_ns = static_cast<uint64_t>(speedup * 400'000'000);
  r.period_ns = 1'000'000;
  r.selected_samples = 800;
  r.mode = ExperimentMode::end_to_end;
  return r;
}

// `pairs` pairs of a baseline and a sped-up run, the location's sped-up runs going through
// 25, 50 and 75% in turn.
void add_pairs(std::vector<ExperimentRecord>& runs, const std::string& location, int pairs,
               uint64_t& clock) {
  const double levels[] = {0.25, 0.5, 0.75};
  size_t before = 0;
  for (const auto& r : runs) before += r.location == location && r.speedup > 0 ? 1 : 0;
  for (int p = 0; p < pairs; ++p) {
    runs.push_back(run_of(location, 0, clock += 10));
    runs.push_back(run_of(location, levels[(before + p) % 3], clock += 10));
  }
}

TEST(EndToEndStay, APairKeepsTheLocationOfThePairBeforeItUntilItHasACurve) {
  std::vector<ExperimentRecord> runs;
  uint64_t clock = 0;
  add_pairs(runs, "a.c:10", 1, clock);
  EXPECT_EQ(end_to_end_locations_to_continue(runs).to_continue, std::vector<std::string>{"a.c:10"});
  add_pairs(runs, "a.c:10", 7, clock);  // 8 pairs: 2 runs at one of the three speedups
  EXPECT_EQ(end_to_end_locations_to_continue(runs).to_continue, std::vector<std::string>{"a.c:10"});
  add_pairs(runs, "a.c:10", 1, clock);  // 9: 3 at each, 9 baselines
  EXPECT_TRUE(end_to_end_locations_to_continue(runs).to_continue.empty());
}

TEST(EndToEndStay, TheLocationWithTheMostRunsComesFirstThenTheLatest) {
  std::vector<ExperimentRecord> runs;
  uint64_t clock = 0;
  add_pairs(runs, "a.c:10", 2, clock);
  add_pairs(runs, "b.c:20", 1, clock);
  add_pairs(runs, "c.c:30", 1, clock);
  add_pairs(runs, "d.c:40", 9, clock);  // has its curve
  const auto choice = end_to_end_locations_to_continue(runs);
  EXPECT_EQ(choice.to_continue, (std::vector<std::string>{"a.c:10", "c.c:30", "b.c:20"}));
  EXPECT_EQ(choice.with_curve, std::vector<std::string>{"d.c:40"});  // a new draw leaves it out
}

TEST(EndToEndStay, ABaselineWithoutItsSpedUpRunIsStillShort) {
  // The sped-up run of the last pair crashed, or -n was odd.
  std::vector<ExperimentRecord> runs;
  uint64_t clock = 0;
  add_pairs(runs, "a.c:10", 9, clock);
  runs.push_back(run_of("b.c:20", 0, clock += 10));
  EXPECT_EQ(end_to_end_locations_to_continue(runs).to_continue, std::vector<std::string>{"b.c:20"});
}

TEST(EndToEndStay, ExperimentsWithProgressPointsAreNotRuns) {
  std::vector<ExperimentRecord> runs;
  uint64_t clock = 0;
  add_pairs(runs, "a.c:10", 9, clock);
  ExperimentRecord point = run_of("b.c:20", 0.5, clock += 10);
  point.mode = ExperimentMode::progress;
  runs.push_back(point);
  EXPECT_TRUE(end_to_end_locations_to_continue(runs).to_continue.empty());
}

// The proportional draw lands on rare code now and then (7-Zip: a line with 1% of the
// samples): a location on the stack for under 2% of its runs' time cannot change the
// program by more, and is not worth 18 runs.
TEST(EndToEndStay, ALocationThatHardlyRunsIsNotStayedOn) {
  std::vector<ExperimentRecord> runs;
  uint64_t clock = 0;
  add_pairs(runs, "rare.c:1", 1, clock);
  for (auto& r : runs) r.selected_samples = 13;  // 13 ms of each 1 s run
  add_pairs(runs, "hot.c:2", 1, clock);
  const auto choice = end_to_end_locations_to_continue(runs);
  EXPECT_EQ(choice.to_continue, std::vector<std::string>{"hot.c:2"});
  ASSERT_EQ(choice.too_little.size(), 1u);
  EXPECT_EQ(choice.too_little[0].first, "rare.c:1");
  EXPECT_NEAR(choice.too_little[0].second, 0.013, 1e-9);
}

}  // namespace
}  // namespace cprof::causal
