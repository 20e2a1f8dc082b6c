#include "report/render/sqlite_causal.h"

#include <cmath>
#include <optional>

#include "report/causal/causal_model.h"
#include "report/render/sqlite_db.h"
#include "report/report.h"

namespace cprof::report {
namespace {

constexpr const char* kCausalSchema = R"sql(
CREATE TABLE experiments (
  id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id), time_ns INTEGER,
  location TEXT, location_id INTEGER, speedup REAL, duration_ns INTEGER, delay_ns INTEGER,
  effective_ns INTEGER, period_ns INTEGER, selected_samples INTEGER, mode TEXT);
CREATE TABLE progress (
  experiment_id INTEGER REFERENCES experiments(id), name TEXT, kind TEXT, visits INTEGER,
  arrivals INTEGER, departures INTEGER, mean_in_flight REAL);
CREATE TABLE regions (
  name TEXT PRIMARY KEY, count INTEGER, mean_ns REAL, min_ns INTEGER, max_ns INTEGER,
  stddev_ns REAL);
CREATE TABLE predictions (
  rank INTEGER, location TEXT, progress_point TEXT, impact REAL, speedup REAL,
  program_speedup REAL, ci_low REAL, ci_high REAL, experiments INTEGER, phase_fraction REAL,
  program_speedup_phase_corrected REAL, status TEXT, out_of_bounds INTEGER);
CREATE TABLE causal_without_prediction (location TEXT, progress_point TEXT, reason TEXT);
)sql";

// NaN (no interval) is NULL, not a number SQL would compare.
std::optional<double> finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

void write_sqlite_causal(Db& db, const Report& r) {
  db.exec(kCausalSchema);
  auto* experiments = db.prepare("INSERT INTO experiments VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  auto* progress = db.prepare("INSERT INTO progress VALUES (?,?,?,?,?,?,?)");
  uint64_t id = 0;
  for (size_t pi = 0; pi < r.processes.size(); ++pi) {
    for (const auto& e : r.processes[pi].experiments) {
      const uint64_t effective = e.duration_ns > e.delay_ns ? e.duration_ns - e.delay_ns : 0;
      const bool end_to_end = e.mode == format::ExperimentMode::end_to_end;
      db.row(experiments, id, pi, e.time_ns, e.location, e.location_id, e.speedup, e.duration_ns,
             e.delay_ns, effective, e.period_ns, e.selected_samples,
             end_to_end ? "end_to_end" : "progress");
      for (const auto& d : e.progress) {
        // As the prediction decides (causal/prediction.cpp): begin/end counts make a latency point.
        const bool latency = d.begin > 0 || d.end > 0;
        db.row(progress, id, d.name, latency ? "latency" : "throughput", d.visits, d.begin, d.end,
               d.mean_in_flight);
      }
      ++id;
    }
  }
  auto* regions = db.prepare("INSERT INTO regions VALUES (?,?,?,?,?,?)");
  for (const auto& rg : r.causal.regions) {
    db.row(regions, rg.name, rg.count, rg.mean_ns, rg.min_ns, rg.max_ns, rg.stddev_ns);
  }
  auto* predictions = db.prepare("INSERT INTO predictions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (size_t rank = 0; rank < r.causal.predictions.size(); ++rank) {
    const auto& p = r.causal.predictions[rank];
    const double impact = causal_impact(p);
    const char* status = curve_status_name(curve_status(p));
    for (const auto& pt : p.points) {
      db.row(predictions, rank, p.location, p.progress_point, impact, pt.speedup,
             pt.program_speedup, finite(pt.ci_low), finite(pt.ci_high), pt.experiments,
             p.phase.fraction, p.corrected(pt.program_speedup), status,
             point_out_of_bounds(pt) ? 1 : 0);
    }
  }
  // Experiments ran on these but they have no curve; progress_point "" is end to end, as
  // in predictions.
  auto* without = db.prepare("INSERT INTO causal_without_prediction VALUES (?,?,?)");
  for (const auto& n : r.causal.without_prediction) {
    db.row(without, n.location, n.progress_point, n.reason);
  }
}

}  // namespace cprof::report
