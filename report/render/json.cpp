// `--format json`: the whole report as one JSON document. The schema is documented in
// docs/report.md; the `profile` fields are a contract (../shared/design.md).
#include "report/render/json_views.h"
#include "report/render/gpu_render.h"
#include "report/render/json_causal.h"
#include "report/render/json_writer.h"
#include "report/render/render.h"

namespace cprof::report {
namespace {

constexpr uint64_t kSchemaVersion = 1;

void measure(JsonWriter& j, const FlatProfile& flat, const Measure& m) {
  j.begin_object()
      .field("samples", m.samples)
      .field("time_ns", m.time_ns)
      .field("fraction", flat.fraction(m))
      .end_object();
}

void row_values(JsonWriter& j, const FlatProfile& flat, const FlatRow& row,
                const GroupSpread* group) {
  j.field("samples", row.self.samples).field("fraction", flat.fraction(row.self));
  j.key("self");
  measure(j, flat, row.self);
  j.key("total");
  measure(j, flat, row.total);
  j.key("per_thread").begin_object().field("threads", flat.threads).key("self_ns");
  json_spread(j, row.self_per_thread);
  j.key("total_ns");
  json_spread(j, row.total_per_thread);
  j.end_object();
  if (!group) return;
  j.key("per_process").begin_object().field("processes", flat.processes).key("self_ns");
  json_spread(j, group->self_per_process);
  j.key("total_ns");
  json_spread(j, group->total_per_process);
  j.end_object();
  j.key("per_run").begin_object().field("runs", flat.runs).key("self_ns");
  json_spread(j, group->self_per_run);
  j.key("total_ns");
  json_spread(j, group->total_per_run);
  j.end_object();
}

size_t limit(const std::vector<FlatRow>& rows, size_t top) {
  return top == 0 ? rows.size() : std::min(top, rows.size());
}

void processes(JsonWriter& j, const Report& r) {
  j.key("processes").begin_array();
  for (size_t index = 0; index < r.processes.size(); ++index) {
    const auto& p = r.processes[index];
    const auto& pr = p.process;
    j.begin_object()
        .field("file", p.file.string())
        .field("complete", !p.cut)
        .field("run", p.run)
        .field("pid", pr.pid)
        .field("ppid", pr.ppid)
        .field("rank", pr.rank)
        .field("hostname", pr.hostname)
        .field("executable", pr.executable);
    j.key("command_line").begin_array();
    for (const auto& a : pr.command_line) j.value(a);
    j.end_array();
    j.field("engine", pr.engine)
        .field("clock", pr.clock)
        .field("unwinder", pr.unwinder)
        .field("frequency_hz", pr.frequency_hz)
        .field("period_ns", pr.period_ns)
        .field("start_realtime_ns", pr.start_realtime_ns)
        .field("duration_ns", p.duration_ns())
        .field("profile_clock", p.clock_name())
        .field("samples", p.samples)
        .field("time_ns", p.weight_ns)
        .field("other_clock_samples", p.other_clock_samples)
        .field("other_clock_time_ns", p.other_clock_weight_ns)
        .field("truncated_samples", p.truncated_samples)
        .field("dropped_samples", p.dropped_samples())
        .field("threads", static_cast<uint64_t>(p.threads.size()))
        .field("peak_rss_bytes", p.peak_rss_bytes());
    if (const double cpu = p.cpu_utilization(); cpu >= 0) {
      j.field("cpu_utilization", cpu);
    } else {
      j.key("cpu_utilization").null();
    }
    if (index < r.breakdown.metrics.size()) json_process_metrics(j, r.breakdown.metrics[index]);
    json_process_coverage(j, p, index < r.coverage.size() ? &r.coverage[index] : nullptr);
    if (index < r.cpu.processes.size()) {
      const auto& c = r.cpu.processes[index];
      j.field("cpu_accounted", c.accounted)
          .field("cpu_recorded_ns", c.recorded_ns)
          .field("cpu_sampled_ns", c.sampled_ns);
    }
    if (index < r.unnamed_code.size()) {
      j.field("unnamed_code_samples", r.unnamed_code[index].samples)
          .field("unnamed_code_time_ns", r.unnamed_code[index].weight_ns);
    }
    j.field("perf_map", p.jit_symbols.empty() ? std::string() : p.jit_map.string());
    j.key("events").begin_array();
    for (const auto& e : p.events) {
      static constexpr const char* kStatus[] = {"ok", "unavailable", "counted_zero"};
      const auto s = static_cast<size_t>(e.status);
      j.begin_object()
          .field("name", e.name)
          .field("canonical_name", e.canonical_name)
          .field("status", s < 3 ? kStatus[s] : "unknown")
          .field("detail", e.detail)
          .end_object();
    }
    j.end_array();
    j.key("messages").begin_array();
    for (const auto& m : p.messages) {
      static constexpr const char* kLevel[] = {"info", "warning", "error"};
      const auto l = static_cast<size_t>(m.level);
      j.begin_object()
          .field("time_ns", m.time_ns)
          .field("level", l < 3 ? kLevel[l] : "unknown")
          .field("text", m.text)
          .end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

}  // namespace

std::string render_json(const Report& r, const RenderOptions& o) {
  std::string out;
  JsonWriter j(out);
  const auto& table = r.symbols.table;
  const auto& flat = r.flat;
  j.begin_object().field("schema_version", kSchemaVersion);
  j.key("summary")
      .begin_object()
      .field("files", static_cast<uint64_t>(r.files_found))
      .field("files_failed", static_cast<uint64_t>(r.files_failed))
      .field("processes", static_cast<uint64_t>(r.processes.size()))
      .field("threads", r.threads())
      .field("samples", r.samples())
      .field("profile_clock", r.clock_kind())
      .field("cpu_recorded_ns", r.cpu.recorded_ns)
      .field("cpu_sampled_ns", r.cpu.sampled_ns)
      .field("cpu_unsampled_ns", r.cpu.unsampled_ns)
      .field("cpu_coverage", r.cpu.coverage())
      .field("filter", r.filter)
      .field("symbols", table.source)
      .end_object();
  processes(j, r);
  j.key("warnings").begin_array();
  for (const auto& w : r.warnings) j.value(w);
  j.end_array();

  j.key("profile").begin_object();
  j.field("samples", flat.all.samples).field("time_ns", flat.all.time_ns).field("threads", flat.threads);
  j.key("functions").begin_array();
  for (size_t i = 0; i < limit(flat.functions, o.top); ++i) {
    const auto& row = flat.functions[i];
    const auto& f = table.functions[row.id];
    j.begin_object(true).field("function", f.name).field("module", f.module).field("file", f.file);
    j.field("line", f.line);
    row_values(j, flat, row, i < flat.function_spread.size() ? &flat.function_spread[i] : nullptr);
    j.end_object();
  }
  j.end_array();
  j.key("lines").begin_array();
  for (size_t i = 0; i < limit(flat.lines, o.top); ++i) {
    const auto& row = flat.lines[i];
    const auto& l = table.lines[row.id];
    j.begin_object(true)
        .field("location", table.line_label(row.id))
        .field("file", l.file)
        .field("line", l.line)
        .field("function", table.functions[l.function].name);
    row_values(j, flat, row, i < flat.line_spread.size() ? &flat.line_spread[i] : nullptr);
    j.end_object();
  }
  j.end_array();
  j.key("by_module").begin_array();
  for (size_t i = 0; i < o.rows(r.modules.size()); ++i) {
    const auto& m = r.modules[i];
    j.begin_object(true)
        .field("module", m.module)
        .field("self_samples", m.self.samples)
        .field("self_ns", m.self.time_ns)
        .field("fraction", r.flat.fraction(m.self))
        .field("functions", static_cast<uint64_t>(m.functions))
        .field("top_function", table.functions[m.top_function].name)
        .field("unnamed_samples", m.unnamed.samples);
    for (const auto& u : r.unnamed_modules) {  // flagged: where names would come from
      if (u.module == m.module)
        j.field("package", u.package).field("debug_package", u.debug_package);
    }
    j.end_object();
  }
  j.end_array();
  json_profile_views(j, r, o);
  j.end_object();
  json_causal(j, r);
  json_gpu(j, r, o);
  j.end_object();
  return out;
}

}  // namespace cprof::report
