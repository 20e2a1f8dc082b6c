#include "sampler/launcher/sampling_cost.h"

#include <fmt/format.h>

namespace cprof::launch {

std::string sampling_cost_warning(double frequency_hz) {
  if (frequency_hz <= kCostlyFrequencyHz) return "";
  return fmt::format(
      "warning: sampling at {:g} Hz costs about {:.0f}% more CPU time in every busy thread "
      "(about {:.0f} us a sample, measured by bench/sampler/sample_cost.sh); at {:g} Hz or "
      "less it costs {:.0f}% or less (docs/sampler.md, \"Sampling rate and overhead\")",
      frequency_hz, frequency_hz * kSampleCostNs / 1e7, kSampleCostNs / 1e3, kCostlyFrequencyHz,
      kCostlyFrequencyHz * kSampleCostNs / 1e7);
}

}  // namespace cprof::launch
