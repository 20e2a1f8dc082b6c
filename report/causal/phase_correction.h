#pragma once
// Coz's phase correction (Curtsinger & Berger, SOSP'15, Sec. 3.4). An experiment on a
// location measures the effect of speeding it up only while the experiment runs, and
// experiments on a location run while the location runs. A location that runs during a
// fraction f of the program (one phase of it) gains the whole program only about f times
// what its experiments measured:
//
//   f = (s * t_obs) / (T * s_obs), capped to [0, 1]
//
//   t_obs  wall time of the experiments on the location (every speedup, baselines too)
//   s_obs  the samples in the location those experiments counted (ExperimentRecord::
//          selected_samples): s_obs / t_obs is how often the location is sampled while
//          it runs
//   s      the samples of the whole run whose stack holds the location, so s * t_obs /
//          s_obs is about how long it ran
//   T      the process's run time (wall)
//
// Per process, then weighted by each process's t_obs. With any input missing or zero the
// fraction is 1 (no correction) and the note says why. End-to-end experiments measure
// whole-run time, which needs no correction, and are not counted here.

#include <map>
#include <string>
#include <vector>

namespace cprof::report {

struct ProcessProfile;
struct SymbolizedProfiles;

struct PhaseCorrection {
  double fraction = 1.0;   // f; 1 when not estimated
  bool estimated = false;  // every input was there in at least one process
  // "the location runs during about 40% of the run", or "no phase correction: why".
  std::string note;
};

// The phase correction of every location that has progress-point experiments, keyed by
// the location as the experiments name it ("file:line" or a function name). Without
// symbols (null) nothing can be matched, and every location says so.
std::map<std::string, PhaseCorrection> estimate_phase_corrections(
    const std::vector<ProcessProfile>& processes, const SymbolizedProfiles* symbols);

// The one process's estimate, exposed for tests: f from the four inputs, or a negative
// value when one is zero.
double phase_fraction(double samples, double experiment_ns, double run_ns, double selected_samples);

}  // namespace cprof::report
