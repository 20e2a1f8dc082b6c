// `--format chrome`: Chrome's trace-event JSON ("JSON Object Format"), which Perfetto UI
// and chrome://tracing open. One track per thread (pid = the process's position in the
// report, named after it; tid = the thread id), its samples drawn as a flame chart: each
// sample covers (time - weight, time]; consecutive samples keep the frames they share
// open, so a function that ran for many samples is one slice. Times are microseconds
// from the earliest process start, in calendar time (each process's monotonic clock is
// placed by its start_realtime_ns), so processes on several hosts line up.
// Needs the per-sample timeline (LoadOptions::keep_timeline).
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "report/profile/call_tree.h"
#include "report/render/chrome_causal.h"
#include "report/render/gpu_render.h"
#include "report/render/json_writer.h"
#include "report/render/cpu_account_note.h"
#include "report/render/render.h"

namespace cprof::report {
namespace {

// A sample further than this from the previous one's end starts afresh (a gap: the
// thread was off CPU or unsampled).
constexpr double kGapFactor = 1.5;

// The most frequent stack among a few samples; the first of equals.
uint32_t mode_stack(const std::vector<std::pair<uint32_t, uint32_t>>& votes) {
  uint32_t best = votes.front().first, most = 0;
  for (const auto& [stack, n] : votes) {
    if (n > most) {
      best = stack;
      most = n;
    }
  }
  return best;
}

struct Track {
  JsonWriter& j;
  uint64_t pid;
  int64_t tid;
  const std::vector<std::string>& names;
  std::vector<FunctionId> open;

  void event(char phase, double ts_us, FunctionId f) {
    j.begin_object(true)
        .field("ph", std::string_view(&phase, 1))
        .field("pid", pid)
        .field("tid", tid);
    j.field("ts", ts_us);
    if (phase == 'B') j.field("name", names[f]).field("cat", "sample");
    j.end_object();
  }
  void close_to(size_t keep, double ts_us) {
    while (open.size() > keep) {
      event('E', ts_us, open.back());
      open.pop_back();
    }
  }
};

}  // namespace

// At most about max_events events (a slice opens and closes frames: up to two events per
// frame): beyond it, each slice stands for several consecutive samples of a thread, drawn
// with their most frequent stack. A trace of every sample of a 10M-sample run would be
// gigabytes that no viewer opens.
std::string render_chrome(const Report& r, uint64_t max_events) {
  std::string out;
  JsonWriter j(out);
  const auto& table = r.symbols.table;
  std::vector<std::string> names(table.functions.size());
  for (size_t f = 0; f < names.size(); ++f) names[f] = table.functions[f].name;

  // Each process's monotonic time -> ns since the earliest start, in realtime.
  uint64_t origin = UINT64_MAX;
  for (const auto& p : r.processes) {
    if (p.has_process_record && p.process.start_realtime_ns)
      origin = std::min(origin, p.process.start_realtime_ns);
  }
  // The budget in slices: events over the worst case of 2 events per frame of a sample.
  uint64_t timeline = 0, frames = 0;
  for (const auto& p : r.processes) {
    timeline += p.timeline.size();
    for (const auto& s : p.timeline) frames += p.stacks.frames(s.stack).size();
  }
  const uint64_t max_slices = std::max<uint64_t>(
      1, max_events / std::max<uint64_t>(1, 2 * frames / std::max<uint64_t>(1, timeline)));
  const uint64_t per_slice = std::max<uint64_t>(1, (timeline + max_slices - 1) / max_slices);
  uint64_t all_spans = 0;
  for (const auto& p : r.processes) all_spans += region_span_count(p);
  j.begin_object().field("displayTimeUnit", "ms");
  j.key("otherData").begin_object().field("generator", "causal-report");
  if (origin != UINT64_MAX) j.field("start_realtime_ns", origin);
  j.field("samples_per_slice", per_slice);
  j.field("profile_clock", r.clock_kind());  // whose samples the flame charts draw
  // A timeline cannot place CPU time no sample covers: it is said here, with its groups.
  if (r.cpu.any()) {
    j.field("cpu_recorded_ns", r.cpu.recorded_ns).field("cpu_unsampled_ns", r.cpu.unsampled_ns);
    j.field("cpu_account", cpu_account_line(r));
    j.key("unsampled").begin_array();
    for (const auto& row : unsampled_rows(r)) {
      j.begin_object(true).field("label", row.label).field("ns", row.ns).end_object();
    }
    j.end_array();
  }
  j.end_object();
  j.key("traceEvents").begin_array();
  std::vector<FunctionId> stack;
  std::vector<std::pair<uint32_t, uint32_t>> votes;  // (stack, samples) in one slice
  for (size_t pi = 0; pi < r.processes.size(); ++pi) {
    const auto& p = r.processes[pi];
    const uint64_t pid = pi + 1;
    const bool placed = origin != UINT64_MAX && p.has_process_record && p.process.start_realtime_ns;
    const auto us = [&](uint64_t mono_ns) {
      const double since_start = placed
                                     ? static_cast<double>(mono_ns) -
                                           static_cast<double>(p.process.start_monotonic_ns) +
                                           static_cast<double>(p.process.start_realtime_ns - origin)
                                     : static_cast<double>(mono_ns);
      return std::max(0.0, since_start) / 1e3;
    };
    j.begin_object(true).field("ph", "M").field("pid", pid).field("name", "process_name");
    j.key("args").begin_object().field("name", p.label()).end_object().end_object();
    for (const auto& t : p.threads) {
      j.begin_object(true)
          .field("ph", "M")
          .field("pid", pid)
          .field("tid", t.tid)
          .field("name", "thread_name");
      j.key("args").begin_object().field("name", t.name.empty() ? std::to_string(t.tid) : t.name);
      j.end_object().end_object();
    }
    chrome_causal_events(j, p, pid, us);  // experiments, progress rates, regions
    // Region calls: an eighth of the budget over all processes, shared by their counts
    // (one event a call); the samples keep the rest, as with the GPU's quarter.
    if (const uint64_t n = region_span_count(p); n > 0) {
      const uint64_t budget = std::max<uint64_t>(1, max_events / 8);
      const auto share = static_cast<uint64_t>(static_cast<double>(budget) *
                                               static_cast<double>(n) /
                                               static_cast<double>(all_spans));
      chrome_region_spans(j, p, pid, std::max<uint64_t>(1, share), us);
    }
    // Samples per thread, in time order.
    std::vector<uint32_t> order(p.timeline.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const auto& x = p.timeline[a];
      const auto& y = p.timeline[b];
      return x.thread != y.thread ? x.thread < y.thread : x.time_ns < y.time_ns;
    });
    const auto& locations = r.symbols.frame_locations[pi];
    const uint64_t period =
        p.has_process_record && p.process.period_ns ? p.process.period_ns : 1'000'000;
    for (size_t k = 0; k < order.size();) {
      const uint32_t thread = p.timeline[order[k]].thread;
      Track track{j, pid, p.threads[thread].tid, names, {}};
      double last_end = -1;
      const auto span = [&](size_t i) {  // (begin, end, weight) of sample order[i], in us
        const auto& s = p.timeline[order[i]];
        const double weight = static_cast<double>(s.weight_ns ? s.weight_ns : period) / 1e3;
        const double end = us(s.time_ns);
        return std::tuple{end - weight, end, weight};
      };
      while (k < order.size() && p.timeline[order[k]].thread == thread) {
        // One slice: up to per_slice consecutive samples of this thread without a gap.
        auto [begin, end, weight] = span(k);
        votes.clear();
        for (size_t n = 0;
             k < order.size() && p.timeline[order[k]].thread == thread && n < per_slice; ++n, ++k) {
          const auto [b, e, w] = span(k);
          if (n > 0 && b > end + kGapFactor * w) break;
          end = std::max(end, e);
          const uint32_t id = p.timeline[order[k]].stack;
          auto it = std::find_if(votes.begin(), votes.end(),
                                 [&](const auto& v) { return v.first == id; });
          if (it == votes.end()) {
            votes.push_back({id, 1});
          } else {
            ++it->second;
          }
        }
        if (last_end >= 0 && begin > last_end + kGapFactor * weight) track.close_to(0, last_end);
        begin = std::max(begin, last_end);  // slices on one track never overlap
        stack.clear();
        stack_functions(p, locations, table, mode_stack(votes), stack);
        size_t common = 0;
        while (common < stack.size() && common < track.open.size() &&
               stack[common] == track.open[common])
          ++common;
        track.close_to(common, begin);
        for (size_t i = common; i < stack.size(); ++i) {
          track.event('B', begin, stack[i]);
          track.open.push_back(stack[i]);
        }
        last_end = std::max(end, begin);
      }
      track.close_to(0, last_end);
    }
  }
  chrome_gpu(j, r, max_events);
  j.end_array();
  j.end_object();
  return out;
}

}  // namespace cprof::report
