// The speedups of an end-to-end run's sped-up runs: every level before any comes back.
#include "causal/end_to_end_speedups.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

namespace cprof::causal {
namespace {

TEST(EndToEndSpeedups, NinePairsGiveEachOfTheFewLevelsThreeRuns) {
  // Drawn at random from 0-100% by 5, nine sped-up runs leave most levels with one or none
  // and no curve reaches the minimum evidence (3 at each of 3 speedups).
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    EndToEndSpeedups drawn({}, seed);
    std::map<double, int> runs;
    for (int round = 0; round < 3; ++round) {
      std::set<double> this_round;
      for (int i = 0; i < 3; ++i) this_round.insert(drawn.next());
      EXPECT_EQ(this_round, (std::set<double>{0.25, 0.5, 0.75})) << seed;
      for (const double s : this_round) ++runs[s];
    }
    EXPECT_EQ(runs, (std::map<double, int>{{0.25, 3}, {0.5, 3}, {0.75, 3}})) << seed;
  }
}

TEST(EndToEndSpeedups, TheOrderWithinARoundDependsOnTheSeed) {
  std::set<std::vector<double>> orders;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    EndToEndSpeedups drawn({}, seed);
    orders.insert({drawn.next(), drawn.next(), drawn.next()});
  }
  EXPECT_GT(orders.size(), 1u);
}

TEST(EndToEndSpeedups, AZeroInTheUsersListIsNotASpedUpRun) {
  // The baselines are the even runs: a sped-up run at 0% would be one more of them.
  EndToEndSpeedups drawn({0, 0.1, 0.2}, 7);
  for (int i = 0; i < 10; ++i) EXPECT_GT(drawn.next(), 0) << i;
  EndToEndSpeedups only_zero({0}, 7);
  EXPECT_EQ(only_zero.next(), 0);
}

}  // namespace
}  // namespace cprof::causal
