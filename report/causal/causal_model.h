#pragma once
// The causal side of a report: every experiment of every process and run, turned into
// predictions (causal/prediction.h), plus the progress points and the timed regions
// (latency points' per-call durations, merged across processes with Chan's formula).

#include <string>
#include <vector>

#include "causal/prediction.h"
#include "format/records.h"

namespace cprof::report {

struct ProcessProfile;

struct CausalRegion {
  std::string name;
  uint64_t count = 0;
  double mean_ns = 0;
  double stddev_ns = 0;
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
};

struct CausalModel {
  size_t experiments = 0;
  size_t end_to_end_runs = 0;
  std::vector<causal::LocationPrediction> predictions;  // by location, then progress point
  std::vector<format::ProgressPointRecord> progress_points;  // distinct by name
  std::vector<CausalRegion> regions;

  bool empty() const { return experiments == 0 && regions.empty(); }
};

CausalModel build_causal_model(const std::vector<ProcessProfile>& processes);

// The prediction point with the largest program speedup (ties: the smaller speedup), or
// null for an empty curve.
const causal::PredictionPoint* best_point(const causal::LocationPrediction& p);
// "speeding up foo.cpp:42 by 20% would speed up the program by about 9%".
std::string causal_verdict(const causal::LocationPrediction& p, const causal::PredictionPoint& point);

}  // namespace cprof::report
