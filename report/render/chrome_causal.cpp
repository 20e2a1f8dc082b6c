#include "report/render/chrome_causal.h"

#include <fmt/format.h>

#include "report/load/process_profile.h"
#include "report/render/json_writer.h"

namespace cprof::report {
namespace {

void track_name(JsonWriter& j, uint64_t pid, int64_t tid, const char* name) {
  j.begin_object(true).field("ph", "M").field("pid", pid).field("tid", tid).field("name", "thread_name");
  j.key("args").begin_object().field("name", name).end_object().end_object();
}

}  // namespace

void chrome_causal_events(JsonWriter& j, const ProcessProfile& p, uint64_t pid,
                          const std::function<double(uint64_t)>& us) {
  if (!p.experiments.empty()) track_name(j, pid, kExperimentsTid, "causal experiments");
  for (const auto& e : p.experiments) {
    const double begin = us(e.time_ns);
    const double dur = static_cast<double>(e.duration_ns) / 1e3;
    j.begin_object(true)
        .field("ph", "X")
        .field("pid", pid)
        .field("tid", kExperimentsTid)
        .field("ts", begin)
        .field("dur", dur)
        .field("name", fmt::format("{} +{:.0f}%", e.location, e.speedup * 100))
        .field("cat", "experiment");
    j.key("args").begin_object(true)
        .field("location", e.location)
        .field("speedup", e.speedup)
        .field("duration_ns", e.duration_ns)
        .field("delay_ns", e.delay_ns)
        .field("selected_samples", e.selected_samples)
        .field("mode", e.mode == format::ExperimentMode::end_to_end ? "end_to_end" : "progress");
    for (const auto& d : e.progress) {
      const bool latency = d.begin > 0 || d.end > 0;
      j.field(d.name, latency ? d.end : d.visits);
    }
    j.end_object().end_object();
    // Visits per second of effective time: what the experiment's prediction is made of.
    const double effective_s =
        static_cast<double>(e.duration_ns > e.delay_ns ? e.duration_ns - e.delay_ns : 0) / 1e9;
    if (effective_s <= 0) continue;
    for (const auto& d : e.progress) {
      const bool latency = d.begin > 0 || d.end > 0;
      const double rate = static_cast<double>(latency ? d.end : d.visits) / effective_s;
      for (const auto& [ts, value] : {std::pair{begin, rate}, std::pair{begin + dur, 0.0}}) {
        j.begin_object(true)
            .field("ph", "C")
            .field("pid", pid)
            .field("ts", ts)
            .field("name", "progress " + d.name + " per s")
            .key("args")
            .begin_object(true)
            .field("rate", value)
            .end_object()
            .end_object();
      }
    }
  }
  if (!p.regions.empty()) track_name(j, pid, kRegionsTid, "timed regions (summary at exit)");
  for (const auto& rg : p.regions) {
    j.begin_object(true)
        .field("ph", "i")
        .field("s", "t")
        .field("pid", pid)
        .field("tid", kRegionsTid)
        .field("ts", us(rg.time_ns))
        .field("name", "region " + rg.name)
        .field("cat", "region");
    j.key("args").begin_object(true)
        .field("count", rg.count)
        .field("mean_ns", rg.mean_ns)
        .field("min_ns", rg.min_ns)
        .field("max_ns", rg.max_ns)
        .field("stddev_ns", rg.stddev_ns)
        .field("dropped", rg.dropped)
        .end_object()
        .end_object();
  }
}

}  // namespace cprof::report
