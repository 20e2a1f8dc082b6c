#include "report/render/chrome_causal.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

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
  if (!p.regions.empty() || !p.region_spans.empty()) {
    track_name(j, pid, kRegionsTid, "timed regions (summary at exit)");
  }
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

uint64_t region_span_count(const ProcessProfile& p) {
  uint64_t n = 0;
  for (const auto& b : p.region_spans) n += b.spans.size();
  return n;
}

void chrome_region_spans(JsonWriter& j, const ProcessProfile& p, uint64_t pid, uint64_t max_spans,
                         const std::function<double(uint64_t)>& us) {
  struct Call {
    uint64_t begin_ns;
    uint64_t end_ns;
    int64_t tid;
    uint32_t batch;  // index into p.region_spans: the point's name
  };
  std::vector<Call> calls;
  calls.reserve(region_span_count(p));
  for (uint32_t b = 0; b < p.region_spans.size(); ++b) {
    for (const auto& s : p.region_spans[b].spans) calls.push_back({s.begin_ns, s.end_ns, s.tid, b});
  }
  if (calls.empty()) return;
  const size_t all = calls.size();
  // Over the budget: the earliest calls, as the GPU tracks keep the earliest kernels.
  std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
    return a.begin_ns != b.begin_ns ? a.begin_ns < b.begin_ns : a.end_ns > b.end_ns;
  });
  if (calls.size() > max_spans) calls.resize(max_spans);
  // One track per thread, in tid order, named after the thread.
  std::map<int64_t, int64_t> track_of;
  for (const auto& c : calls) track_of.emplace(c.tid, 0);
  int64_t next = kRegionSpansTid0;
  for (auto& [tid, track] : track_of) {
    track = next++;
    std::string name = std::to_string(tid);
    for (const auto& t : p.threads) {
      if (t.tid == tid && !t.name.empty()) name = fmt::format("{} ({})", t.name, tid);
    }
    j.begin_object(true).field("ph", "M").field("pid", pid).field("tid", track).field("name", "thread_name");
    j.key("args").begin_object().field("name", name + " regions").end_object().end_object();
  }
  for (const auto& c : calls) {
    const double ts = us(c.begin_ns);
    j.begin_object(true)
        .field("ph", "X")
        .field("pid", pid)
        .field("tid", track_of[c.tid])
        .field("ts", ts)
        // From the integers: a difference of two large microsecond doubles has noise digits.
        .field("dur", static_cast<double>(c.end_ns > c.begin_ns ? c.end_ns - c.begin_ns : 0) / 1e3)
        .field("name", p.region_spans[c.batch].name)
        .field("cat", "region");
    j.key("args").begin_object(true).field("tid", c.tid).end_object().end_object();
  }
  if (calls.size() < all) {
    j.begin_object(true)
        .field("ph", "i")
        .field("s", "t")
        .field("pid", pid)
        .field("tid", kRegionsTid)
        .field("ts", us(calls.back().begin_ns))
        .field("name", fmt::format("region spans cut: the first {} of {} calls drawn",
                                   calls.size(), all))
        .field("cat", "region")
        .end_object();
  }
}

}  // namespace cprof::report
