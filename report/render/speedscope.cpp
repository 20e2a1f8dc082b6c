// `--format speedscope`: speedscope's file format
// (https://www.speedscope.app/file-format-schema.json): shared frames (one per function)
// and one "sampled" profile per thread, each sample a stack of frame indices, outermost
// first, weighted by its time in nanoseconds (by 1 when no sample carries a weight).
// Samples with the same stack on one thread are merged: the flame graph and the tables
// are the same; the time order of "time order" view is not kept.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "report/profile/call_tree.h"
#include "report/render/json_writer.h"
#include "report/render/render.h"
#include "report/render/text_util.h"

namespace cprof::report {

std::string render_speedscope(const Report& r) {
  std::string out;
  JsonWriter j(out);
  const auto& table = r.symbols.table;
  bool weighted = r.flat.all.time_ns > 0;
  j.begin_object()
      .field("$schema", "https://www.speedscope.app/file-format-schema.json")
      .field("name", fmt::format("causal-report: {}, {}{}",
                                 plural(r.processes.size(), "process", "processes"),
                                 plural(r.threads(), "thread"),
                                 r.clock_summary().empty() ? "" : ", " + r.clock_summary()))
      .field("exporter", "causal-report")
      .field("activeProfileIndex", 0);
  j.key("shared").begin_object().key("frames").begin_array();
  for (const auto& f : table.functions) {
    j.begin_object(true).field("name", f.name);
    if (!f.file.empty()) j.field("file", f.file).field("line", f.line);
    j.end_object();
  }
  j.end_array().end_object();

  j.key("profiles").begin_array();
  std::vector<FunctionId> stack;
  for (const auto& row : r.breakdown.threads) {  // threads by time, hottest first
    const auto& p = r.processes[row.process];
    const auto& locations = r.symbols.frame_locations[row.process];
    const auto& t = p.threads[row.thread];
    j.begin_object()
        .field("type", "sampled")
        .field("name",
               fmt::format("{} {}{}{}", p.label(), t.tid, t.name.empty() ? "" : " ", t.name))
        .field("unit", weighted ? "nanoseconds" : "none")
        .field("startValue", 0)
        .field("endValue", weighted ? row.time.time_ns : row.time.samples);
    std::vector<uint32_t> mine;
    for (uint32_t i = 0; i < p.counts.size(); ++i) {
      if (p.counts[i].thread == row.thread) mine.push_back(i);
    }
    j.key("samples").begin_array();
    for (const uint32_t i : mine) {
      stack.clear();
      stack_functions(p, locations, table, p.counts[i].stack, stack);
      j.begin_array(true);
      for (const FunctionId f : stack) j.value(f);
      j.end_array();
    }
    j.end_array();
    j.key("weights").begin_array(true);
    for (const uint32_t i : mine) j.value(weighted ? p.counts[i].weight_ns : p.counts[i].samples);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return out;
}

}  // namespace cprof::report
