// The JSON report's "gpu" object (schema in docs/report.md): null without GPU records.
// `kernels` (per kernel: calls, total/mean/min/max/stddev time, launch sites) is a
// contract of ../shared/design.md; `--top` limits kernels and launch rows.
#include "report/render/gpu_render.h"

namespace cprof::report {
namespace {

void measure(JsonWriter& j, const GpuProfile& g, const GpuMeasure& m) {
  j.begin_object()
      .field("calls", m.calls)
      .field("time_ns", m.time_ns)
      .field("fraction", g.fraction(m))
      .end_object();
}

void site(JsonWriter& j, const Report& r, const GpuSite& s) {
  const auto& table = r.symbols.table;
  j.field("function", gpu_site_function(r, s));
  if (s.none()) {
    j.field("module", "").field("file", "").field("line", 0);
    return;
  }
  const auto& l = table.lines[s.line];
  j.field("module", table.functions[s.function].module).field("file", l.file).field("line", l.line);
}

void kernels(JsonWriter& j, const Report& r, const RenderOptions& o) {
  const auto& g = r.gpu;
  j.key("kernels").begin_array();
  for (size_t i = 0; i < o.rows(g.kernel_rows.size()); ++i) {
    const auto& k = g.kernel_rows[i];
    const auto& d = k.duration_ns;
    j.begin_object()
        .field("name", gpu_kernel_label(k.name))
        .field("calls", k.calls)
        .field("untimed_calls", k.untimed)
        .field("total_ns", k.total_ns)
        .field("fraction", g.fraction({k.calls, k.total_ns}))
        .field("mean_ns", d.mean())
        .field("min_ns", d.min())
        .field("max_ns", d.max())
        .field("stddev_ns", d.stddev());
    j.key("launch_sites").begin_array();
    for (size_t s = 0; s < o.rows(k.sites.size()); ++s) {
      const auto& ks = k.sites[s];
      j.begin_object(true);
      site(j, r, ks.site);
      j.field("calls", ks.measure.calls).field("time_ns", ks.measure.time_ns).end_object();
    }
    j.end_array().end_object();
  }
  j.end_array();
}

void launch_rows(JsonWriter& j, const Report& r, const RenderOptions& o, bool by_line) {
  const auto& g = r.gpu;
  const auto& table = r.symbols.table;
  const auto& rows = by_line ? g.launch_lines : g.launch_functions;
  j.key(by_line ? "launch_lines" : "launch_functions").begin_array();
  for (size_t i = 0; i < o.rows(rows.size()); ++i) {
    const auto& row = rows[i];
    j.begin_object(true);
    if (row.id == GpuLaunchRow::kNoSite) {
      if (by_line) j.field("location", "[no launch stack]");
      j.field("function", "[no launch stack]").field("file", "").field("line", 0);
    } else if (by_line) {
      const auto& l = table.lines[row.id];
      j.field("location", table.line_label(row.id))
          .field("file", l.file)
          .field("line", l.line)
          .field("function", table.functions[l.function].name);
    } else {
      const auto& f = table.functions[row.id];
      j.field("function", f.name).field("module", f.module).field("file", f.file).field("line", f.line);
    }
    j.key("self");
    measure(j, g, row.self);
    j.key("total");
    measure(j, g, row.total);
    j.end_object();
  }
  j.end_array();
}

void tree(JsonWriter& j, const Report& r) {
  const auto& nodes = r.gpu.launch_tree;
  j.key("launch_tree").begin_array();
  for (size_t i = 1; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    j.begin_object(true)
        .field("id", static_cast<uint64_t>(i))
        .field("parent", n.parent)
        .field("function", gpu_site_function(r, {.function = n.function}))
        .field("self_calls", n.self.calls)
        .field("self_ns", n.self.time_ns)
        .field("total_calls", n.total.calls)
        .field("total_ns", n.total.time_ns)
        .end_object();
  }
  j.end_array();
}

void devices(JsonWriter& j, const Report& r) {
  j.key("devices").begin_array();
  for (const auto& d : r.gpu.devices) {
    const auto& b = d.busy;
    j.begin_object()
        .field("name", d.name)
        .field("kind", device_kind_name(d.kind))
        .field("hostname", d.hostname)
        .field("run", d.run)
        .field("device_id", d.record_id)
        .field("kernels", d.kernels)
        .field("timed_kernels", d.timed_kernels)
        .field("queues", d.queues)
        .field("copies", d.copies)
        .field("kernel_time_ns", d.kernel_ns)
        .field("busy_ns", b.busy_ns)
        .field("span_start_ns", b.span_start_ns)
        .field("span_ns", b.span_ns())
        .field("busy_fraction", b.busy_fraction())
        .field("in_windows", b.in_windows)
        .field("windows", b.windows);
    j.key("idle_gaps").begin_object().field("gaps", b.gaps);
    j.key("bounds_us").begin_array(true);
    for (const uint64_t x : kIdleGapBoundsUs) j.value(x);
    j.end_array().key("counts").begin_array(true);
    for (const uint64_t x : b.gap_counts) j.value(x);
    j.end_array().key("time_ns").begin_array(true);
    for (const uint64_t x : b.gap_ns) j.value(x);
    j.end_array().end_object().end_object();
  }
  j.end_array();
}

void copies(JsonWriter& j, const Report& r) {
  j.key("copies").begin_array();
  for (const auto& c : r.gpu.copy_rows) {
    const auto& d = c.duration_ns;
    j.begin_object(true)
        .field("direction", copy_direction_name(c.direction))
        .field("count", c.count)
        .field("bytes", c.bytes)
        .field("timed", c.timed)
        .field("timed_bytes", c.timed_bytes)
        .field("time_ns", c.time_ns)
        .field("gb_per_s", c.gb_per_s())
        .field("mean_ns", d.mean())
        .field("min_ns", d.min())
        .field("max_ns", d.max())
        .field("stddev_ns", d.stddev())
        .end_object();
  }
  j.end_array();
}

// Present with or without windows, so that a consumer can rely on it: not windowed reads
// duty 1, scale 1 and no traced time.
void tracing(JsonWriter& j, const GpuTracing& t) {
  const bool w = t.windowed();
  j.key("tracing")
      .begin_object()
      .field("windowed", w)
      .field("processes", t.processes)
      .field("windowed_processes", t.windowed_processes)
      .field("duty", w ? t.duty_min : 1.0)
      .field("duty_max", w ? t.duty_max : 1.0)
      .field("period_ns", t.period_min_ns)
      .field("period_max_ns", t.period_max_ns)
      .field("mixed", w && t.mixed())
      .field("windows", t.windows)
      .field("inferred_windows", t.inferred_windows)
      .field("outside_windows", t.outside)
      .field("traced_ns", t.traced_ns)
      .field("span_ns", t.span_ns)
      .field("traced_fraction", t.traced_fraction())
      .field("scale", t.scale())
      .end_object();
}

}  // namespace

void json_gpu(JsonWriter& j, const Report& r, const RenderOptions& o) {
  const auto& g = r.gpu;
  if (g.empty()) {
    j.key("gpu").null();
    return;
  }
  j.key("gpu").begin_object();
  j.key("summary")
      .begin_object()
      .field("kernels", g.kernels)
      .field("timed_kernels", g.timed_kernels)
      .field("kernel_time_ns", g.kernel_ns)
      .field("copies", g.copies)
      .field("copy_bytes", g.copy_bytes)
      .field("devices", static_cast<uint64_t>(g.devices.size()));
  j.key("engines").begin_array(true);
  for (const auto& e : g.engines) j.value(e);
  j.end_array().end_object();
  tracing(j, g.tracing);
  kernels(j, r, o);
  launch_rows(j, r, o, false);
  launch_rows(j, r, o, true);
  tree(j, r);
  devices(j, r);
  copies(j, r);
  j.end_object();
}

}  // namespace cprof::report
