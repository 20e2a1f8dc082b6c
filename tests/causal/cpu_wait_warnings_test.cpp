// causal-run's summary: one line for the CPU-contention warnings of every run.
#include "causal/launcher/cpu_wait_warnings.h"

#include <gtest/gtest.h>

#include "causal/runtime/cpu_wait.h"

namespace cprof::causal {
namespace {

TEST(CpuWaitWarnings, OneLineForEveryRunWithTheRangeOfShares) {
  std::vector<std::string> w = {cpu_wait_warning(31, 69, 0.2), "something else",
                                cpu_wait_warning(44, 56, 0.2), cpu_wait_warning(25, 75, 0.2)};
  group_cpu_wait_warnings(w);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "the program's threads waited for a CPU during the experiments of 3 processes, 56% "
            "to 75% of the time they were ready to run (other jobs, or more busy threads than "
            "CPUs): the wall time grows while the virtual speedups do not, so the predictions "
            "come out smaller than on an idle machine, and vary more");
  EXPECT_EQ(w[1], "something else");
}

TEST(CpuWaitWarnings, OneWarningStaysAsItIs) {
  const std::string one = cpu_wait_warning(31, 69, 0.2);
  std::vector<std::string> w = {one};
  group_cpu_wait_warnings(w);
  EXPECT_EQ(w, std::vector<std::string>{one});
  std::vector<std::string> same = {one, one};
  group_cpu_wait_warnings(same);
  ASSERT_EQ(same.size(), 1u);
  EXPECT_NE(same[0].find("of 2 processes, 69% of the time"), std::string::npos) << same[0];
}

}  // namespace
}  // namespace cprof::causal
