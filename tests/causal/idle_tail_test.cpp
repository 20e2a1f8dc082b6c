#include "causal/idle_tail.h"

#include <gtest/gtest.h>

namespace cprof::causal {
namespace {

format::ExperimentRecord experiment(
    uint64_t time_ns, uint64_t visits,
    format::ExperimentMode mode = format::ExperimentMode::progress) {
  format::ExperimentRecord e;
  e.time_ns = time_ns;
  e.location = "a.c:1";
  e.duration_ns = 100;
  e.mode = mode;
  format::ProgressDelta d;
  d.name = "done";
  d.visits = visits;
  e.progress.push_back(d);
  return e;
}

std::vector<uint64_t> times(const std::vector<format::ExperimentRecord>& v) {
  std::vector<uint64_t> out;
  for (const auto& e : v) out.push_back(e.time_ns);
  return out;
}

TEST(IdleTail, ExperimentsAfterTheLastProgressAreDropped) {
  // memcached after its load generator ended: idle experiments until it was stopped.
  std::vector<format::ExperimentRecord> v{experiment(1, 5), experiment(2, 0), experiment(3, 7),
                                          experiment(4, 0), experiment(5, 0)};
  EXPECT_EQ(drop_idle_tail(v), 2u);
  // An experiment without progress between two with progress is evidence: it stays.
  EXPECT_EQ(times(v), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(IdleTail, ALatencyPointsBeginOrEndIsProgress) {
  std::vector<format::ExperimentRecord> v{experiment(1, 5), experiment(2, 0)};
  v[1].progress[0].end = 1;
  EXPECT_EQ(drop_idle_tail(v), 0u);
  v[1].progress[0].end = 0;
  v[1].progress[0].begin = 2;
  EXPECT_EQ(drop_idle_tail(v), 0u);
}

TEST(IdleTail, AProcessThatNeverProgressedKeepsItsExperiments) {
  // The report says from them that the point was never reached.
  std::vector<format::ExperimentRecord> v{experiment(1, 0), experiment(2, 0)};
  EXPECT_EQ(drop_idle_tail(v), 0u);
  EXPECT_EQ(v.size(), 2u);
}

TEST(IdleTail, EndToEndRunsStay) {
  std::vector<format::ExperimentRecord> v{experiment(1, 3), experiment(2, 0),
                                          experiment(3, 1, format::ExperimentMode::end_to_end)};
  EXPECT_EQ(drop_idle_tail(v), 1u);
  EXPECT_EQ(times(v), (std::vector<uint64_t>{1, 3}));
}

}  // namespace
}  // namespace cprof::causal
