#include "report/render/coz_writer.h"
#include "report/report.h"

namespace cprof::report {

void coz_experiments(CozWriter& coz, const Report& r) {
  for (const auto& p : r.processes) {
    for (const auto& e : p.experiments) {
      const uint64_t effective = e.duration_ns > e.delay_ns ? e.duration_ns - e.delay_ns : 0;
      coz.experiment(e.location, e.speedup, effective, e.selected_samples);
      if (e.mode == format::ExperimentMode::end_to_end) {
        coz.throughput_point("end-to-end", 1);
        continue;
      }
      for (const auto& d : e.progress) {
        // The prediction's own test (causal/prediction.cpp): begin/end counts make a
        // latency point.
        if (d.begin > 0 || d.end > 0) {
          coz.latency_point(d.name, d.begin, d.end, d.mean_in_flight);
        } else {
          coz.throughput_point(d.name, d.visits);
        }
      }
    }
  }
}

}  // namespace cprof::report
