#pragma once
// The causal side of a report: every experiment of every process and run, turned into
// predictions (causal/prediction.h), plus the progress points and the timed regions
// (latency points' per-call durations, merged across processes with Chan's formula).

#include <string>
#include <vector>

#include "causal/minimum_evidence.h"
#include "causal/prediction.h"
#include "format/records.h"
#include "report/causal/phase_correction.h"

namespace cprof::report {

struct ProcessProfile;
struct SymbolizedProfiles;

struct CausalRegion {
  std::string name;
  uint64_t count = 0;
  double mean_ns = 0;
  double stddev_ns = 0;
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
};

// Minimum evidence for a curve to be trusted, stated next to every curve (docs/report.md):
// a point needs causal::kMinExperimentsPerPoint experiments at its speedup (and the
// baseline as many), and a curve this many non-zero speedups with such points. Below
// either, the curve is shown with a note rather than hidden: a short run still says where
// to look.
using causal::evidence_note;
using causal::kMinExperimentsPerPoint;
using causal::kMinSpeedups;
using causal::meets_minimum_evidence;
using causal::required_speedups;

// What a curve's headline is worth (docs/report.md, "Causal profile"):
//   prediction     meets the minimum evidence and respects the bound below;
//   weak_evidence  below the minimum evidence: the verdict starts "too little evidence yet";
//   out_of_bounds  its best point gains the program more than the line speedup could
//                  (Amdahl's law): run-to-run noise, shown as data, never as a finding.
enum class CurveStatus { prediction, weak_evidence, out_of_bounds };

// Amdahl's bound on what the report prints as the program speedup, (p0 - ps) / p0 (the
// drop in time per progress visit, in latency, or in whole-run time): speeding a line up
// by s shortens at most the time the line takes, which is at most all of it, so
// ps >= (1 - s) p0 and the program speedup is at most s. (A throughput gain p0/ps - 1
// would be bounded by s / (1 - s); the report does not print that.) A point above it
// (beyond rounding) is noise, unless its confidence interval reaches down to the bound:
// then it is consistent with a location that takes all of the time its speedup can
// remove, and it stands, shown as at the bound (point_above_bound). With an interval, only
// a point whose whole interval is above the bound is out of bounds; without one (fewer than
// two experiments on a side) the point decides. The phase-corrected value is f times the
// measured one, f <= 1, so checking the measured value covers both.
bool point_out_of_bounds(const causal::PredictionPoint& point);
// Above the bound, but with an interval that reaches it: a prediction "by up to s".
bool point_above_bound(const causal::PredictionPoint& point);
// The delay bound (PredictionPoint::delay_share, throughput and whole-run points): a gain
// above the share of the experiments' time that was delay needs the sped-up experiments
// to run faster than the baselines in real time. A point whose interval is all above it
// (with room for noise: max(1 point, 10%)) is out of bounds like one above Amdahl's; one
// whose estimate is well above it (1.25 times plus 1 point) but whose interval reaches
// it keeps its verdict with a note saying to expect at most the delay share.
bool point_beyond_delays(const causal::PredictionPoint& point);

// One curve with its phase correction (phase_correction.h). The points stay as measured;
// corrected values are phase.fraction times them, computed where they are shown, so the
// raw prediction is never lost. End-to-end curves keep fraction 1: whole-run time already
// includes every phase.
struct CausalCurve : causal::LocationPrediction {
  PhaseCorrection phase;

  double corrected(double measured) const { return measured * phase.fraction; }
  // Whether text and html show the corrected value instead of the measured one: a
  // correction of a few percent is within the noise and would only add words.
  bool shows_correction() const { return phase.estimated && phase.fraction < 0.95; }
};

// Why a location has no curve, as a kind: the text and HTML reports count the thinly
// measured ones by it (without_prediction_lines.h).
enum class NoPredictionKind {
  only_baselines,     // no sped-up experiment
  no_baseline,        // no baseline of its own (end to end: no baseline run at all)
  never_reached,      // sped-up experiments that selected no sample
  phased_few_units,   // a phased program, too few neighbour units
  point_not_reached,  // the baselines, or the sped-up experiments, never saw the point
};

// A location (with a progress point; "" end to end) that experiments ran on but that has
// no curve, and why: said in the report rather than left out.
struct NoPrediction {
  std::string location;
  std::string progress_point;
  std::string reason;  // "only baseline (0%) runs, none sped it up", ...
  NoPredictionKind kind = NoPredictionKind::only_baselines;
  size_t experiments = 0;  // its experiments (runs end to end) with this point, 0% included
  // The curve its experiments gave, where there was one but it is no prediction (a
  // location never reached while its experiments ran): kept as data for json.
  std::vector<causal::PredictionPoint> points;
};

struct CausalModel {
  size_t experiments = 0;
  size_t end_to_end_runs = 0;
  // Experiments after their process's last progress, left out (causal/idle_tail.h): not
  // in `experiments`.
  size_t idle_tail_experiments = 0;
  // Ranked by phase-corrected impact (corrected_impact), highest first: the curves that
  // meet the minimum evidence, then those below it, then those out of bounds
  // (curve_status); ties by location, then point. Every curve has a point at a non-zero
  // speedup.
  std::vector<CausalCurve> predictions;
  std::vector<NoPrediction> without_prediction;              // by location, then point
  std::vector<format::ProgressPointRecord> progress_points;  // distinct by name
  std::vector<CausalRegion> regions;

  bool empty() const { return experiments == 0 && regions.empty(); }
};

// `symbols` (the profiles' symbolization) lets the phase correction find each location in
// the samples; without it every curve keeps fraction 1 and says why. End-to-end runs
// share their baselines: a 0% run inserts no delay, so it is the same unmodified program
// whichever location it was drawn for (docs/causal.md, "Predictions").
CausalModel build_causal_model(const std::vector<ProcessProfile>& processes,
                               const SymbolizedProfiles* symbols = nullptr);

// The prediction point with the largest program speedup (ties: the smaller speedup), or
// null for an empty curve.
const causal::PredictionPoint* best_point(const causal::LocationPrediction& p);
// Coz's ranking ("impact", viewer/ts/profile.ts max_normalized_area): the area under the
// curve from 0 to s divided by s, maximised over the curve's speedups s. Rewards a curve
// that rises early and stays up over one that has a single lucky point.
double causal_impact(const causal::LocationPrediction& p);
// The impact of the phase-corrected curve: every point scaled by f scales the area by f.
double corrected_impact(const CausalCurve& c);
// meets_minimum_evidence() and evidence_note(): causal/minimum_evidence.h, the rule
// causal-run's summary applies too.
// CurveStatus from the best point and the evidence; "prediction", "weak_evidence",
// "out_of_bounds" (json, sqlite).
CurveStatus curve_status(const causal::LocationPrediction& p);
const char* curve_status_name(CurveStatus s);
// Why the headline is not a finding ("" for a prediction): "run-to-run noise: ...", "too
// little evidence ...".
std::string status_reason(const causal::LocationPrediction& p);
// Intervals that count the spread within one or two runs only: "" when every shown
// prediction's interval rests on at least kMinRunsToResample runs (or on none: end to
// end); else a sentence saying how many runs the intervals come from, what they leave
// out (the drift between runs) and how to get intervals that count it (text, html).
std::string few_runs_note(const CausalModel& m);
// Where the curve's best point compares each sped-up experiment with the baselines just
// before and after it (the program's rate of progress changes in phases:
// causal/neighbour_pairs.h): the sentence saying so and how many experiments fell on a
// change of phase and were left out; "" for a pooled point.
std::string neighbour_note(const causal::LocationPrediction& p);
// "speeding up foo.cpp:42 by 20% would speed up the program by about 9%"; below the
// minimum evidence "too little evidence yet: speeding up ... about 9% (run longer before
// relying on it)"; out of bounds "no prediction for foo.cpp:42: ... run-to-run noise ...".
std::string causal_verdict(const causal::LocationPrediction& p, const causal::PredictionPoint& point);
// The same from the phase-corrected value when the correction shows (shows_correction()):
// "... by about 4% (measured 9%; the location runs during about 40% of the run:
// corrected for that (Coz's phase correction))".
std::string causal_verdict(const CausalCurve& c, const causal::PredictionPoint& point);

}  // namespace cprof::report
