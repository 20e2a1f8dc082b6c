#pragma once
// What a sampling rate costs the program, for the launchers to say so before a run whose
// rate makes sampling a large share of its CPU time (`-f 10000` nearly doubled a run's
// time without a word).

#include <string>

namespace cprof::launch {

// CPU time one sample costs the sampled thread (signal, handler, unwinding, the writer's
// share): bench/sampler/sample_cost.sh measured 39-49 us at depths 1-50 on a 2-core VM
// (docs/benchmarks.md, "Cost per sample"); overhead.sh's 5.4% at 1000 Hz agrees.
inline constexpr double kSampleCostNs = 45'000;

// Rates above this are warned about: 2000 Hz costs about 9% of a busy thread's CPU time.
inline constexpr double kCostlyFrequencyHz = 2000;

// The line a launcher prints for sampling at `frequency_hz` (without the tool's name), or
// "" at a rate that costs little.
std::string sampling_cost_warning(double frequency_hz);

}  // namespace cprof::launch
