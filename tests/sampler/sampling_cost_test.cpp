// `-f 10000` nearly doubled a run's time without a word: a rate that makes sampling a
// large share of the program's CPU time is warned about, with what it costs.
#include "sampler/launcher/sampling_cost.h"

#include <gtest/gtest.h>

namespace cprof::launch {
namespace {

TEST(SamplingCost, HighRateIsWarnedAboutWithItsCost) {
  const std::string w = sampling_cost_warning(10000);
  EXPECT_EQ(w.rfind("warning: sampling at 10000 Hz costs about 45% more CPU time", 0), 0u) << w;
  EXPECT_NE(w.find("docs/sampler.md"), std::string::npos) << w;
  EXPECT_EQ(w.find('\n'), std::string::npos) << w;
}

TEST(SamplingCost, DefaultRatesAreNotWarnedAbout) {
  EXPECT_EQ(sampling_cost_warning(500), "");   // sample-run's default
  EXPECT_EQ(sampling_cost_warning(1000), "");  // causal-run's default
  EXPECT_EQ(sampling_cost_warning(kCostlyFrequencyHz), "");
  EXPECT_NE(sampling_cost_warning(kCostlyFrequencyHz + 1), "");
}

}  // namespace
}  // namespace cprof::launch
