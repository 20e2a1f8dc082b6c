#include "report/render/json_views.h"

#include "report/render/cpu_account_note.h"
#include "report/render/text_views.h"

namespace cprof::report {
namespace {

void group_fields(JsonWriter& j, const Report& r, const BreakdownRow& row) {
  j.field("samples", row.time.samples)
      .field("time_ns", row.time.time_ns)
      .field("fraction", r.flat.fraction(row.time))
      .field("share", r.share(row.time))
      .field("cpu_time_ns", row.cpu_time_ns);
  if (row.time.samples > 0) {
    j.field("top_function", r.symbols.table.functions[row.top_function].name)
        .field("top_function_self_ns", row.top_function_ns);
  } else {
    j.key("top_function").null();
  }
}

// The CPU time no sample covers (profile/cpu_accounting.h): its groups, each with its
// share of all time accounted (as `share` of the by_* rows).
void unsampled(JsonWriter& j, const Report& r) {
  const auto& c = r.cpu;
  j.key("unsampled").begin_object();
  j.field("cpu_ns", c.unsampled_ns)
      .field("share", r.share_ns(c.unsampled_ns))
      .field("other_ns", c.unsampled_other_ns());
  j.key("processes").begin_array();
  for (const auto& g : c.unsampled_processes) {
    j.begin_object(true)
        .field("label", unsampled_processes_label(g))
        .field("executable", g.executable)
        .field("short", g.short_processes)
        .field("processes", static_cast<uint64_t>(g.members.size()))
        .field("cpu_time_ns", g.cpu_time_ns)
        .field("share", r.share_ns(g.cpu_time_ns));
    j.key("members").begin_array();
    for (const size_t m : g.members) j.value(static_cast<uint64_t>(m));
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.key("threads").begin_array();
  for (const auto& g : c.unsampled_threads) {
    j.begin_object(true)
        .field("label", unsampled_threads_label(r.processes[g.process], g))
        .field("process", static_cast<uint64_t>(g.process))
        .field("threads", g.threads)
        .field("cpu_time_ns", g.cpu_time_ns)
        .field("share", r.share_ns(g.cpu_time_ns))
        .end_object();
  }
  j.end_array();
  j.end_object();
}

void counters(JsonWriter& j, const Report& r, const RenderOptions& o) {
  const auto& c = r.counters;
  j.key("counters").begin_object();
  j.key("events").begin_array();
  for (const auto& e : c.events) {
    j.begin_object(true)
        .field("name", e.name)
        .field("canonical_name", e.canonical_name)
        .field("total", e.total)
        .field("processes_ok", e.processes_ok)
        .field("processes_unavailable", e.processes_unavailable)
        .field("processes_counted_zero", e.processes_zero)
        .field("detail", e.detail)
        .end_object();
  }
  j.end_array();
  j.key("ratios").begin_array();
  for (const auto& ratio : c.ratios) {
    j.begin_object(true)
        .field("name", ratio.name)
        .field("numerator", c.events[ratio.numerator].name)
        .field("denominator", c.events[ratio.denominator].name)
        .end_object();
  }
  j.end_array();
  j.key("functions").begin_array();
  for (size_t i = 0; i < o.rows(c.functions.size()); ++i) {
    const auto& row = c.functions[i];
    const auto& f = r.symbols.table.functions[row.function];
    j.begin_object(true).field("function", f.name).field("module", f.module);
    for (const auto* part : {&row.self, &row.total}) {
      j.key(part == &row.self ? "self" : "total").begin_object();
      for (size_t e = 0; e < c.events.size(); ++e) j.field(c.events[e].name, (*part)[e]);
      for (const auto& ratio : c.ratios) {
        const double v = ratio_value(ratio, *part);
        if (v >= 0) {
          j.field(ratio.name, v);
        } else {
          j.key(ratio.name).null();
        }
      }
      j.end_object();
    }
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

void tree(JsonWriter& j, const Report& r) {
  // Flat, parents first: {"id", "parent", "function", "self", "total"}; the root is id 0.
  j.key("tree").begin_array();
  const auto& nodes = r.tree->nodes;
  for (uint32_t id = 1; id < nodes.size(); ++id) {
    const auto& n = nodes[id];
    j.begin_object(true)
        .field("id", id)
        .field("parent", n.parent)
        .field("function", r.symbols.table.functions[n.function].name)
        .field("self_samples", n.self.samples)
        .field("self_ns", n.self.time_ns)
        .field("total_samples", n.total.samples)
        .field("total_ns", n.total.time_ns)
        .end_object();
  }
  j.end_array();
}

}  // namespace

namespace {

// Where threads waited off CPU (profile/wait_view.h): every (call, caller) row, the
// ones that stand out first.
void waits(JsonWriter& j, const Report& r, const RenderOptions& o) {
  const WaitView& w = r.waits;
  const auto& table = r.symbols.table;
  j.key("waits").begin_object();
  j.field("processes", static_cast<uint64_t>(w.processes))
      .field("threads", static_cast<uint64_t>(w.threads))
      .field("wall_ns", w.wall.time_ns)
      .field("cpu_ns", w.cpu.time_ns)
      .field("off_cpu_ns", w.off_cpu_ns());
  j.key("calls").begin_array();
  for (size_t i = 0; i < o.rows(w.rows.size()); ++i) {
    const auto& row = w.rows[i];
    j.begin_object(true)
        .field("call", wait_call_name(table, row))
        .field("symbol", table.functions[row.call].name)
        .field("module", table.functions[row.call].module)
        .field("own_code", row.own_code);
    if (row.has_caller) {
      const auto& line = table.lines[row.caller_line];
      j.key("called_from")
          .begin_object(true)
          .field("function", table.functions[row.caller].name)
          .field("file", line.file)
          .field("line", line.line)
          .end_object();
    } else {
      j.key("called_from").null();
    }
    j.field("off_cpu_ns", row.off_cpu_ns())
        .field("off_cpu_half_width_ns", row.half_width_ns)
        .field("stands_out", row.stands_out)
        .field("threads", static_cast<uint64_t>(row.threads))
        .field("wall_samples", row.wall.samples)
        .field("wall_ns", row.wall.time_ns)
        .field("cpu_samples", row.cpu.samples)
        .field("cpu_ns", row.cpu.time_ns)
        .end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace

void json_process_metrics(JsonWriter& j, const ProcessMetrics& m) {
  j.key("metrics")
      .begin_object(true)
      .field("records", static_cast<uint64_t>(m.records))
      .field("peak_rss_bytes", m.peak_rss_bytes);
  if (m.cpu_utilization >= 0) {
    j.field("cpu_utilization", m.cpu_utilization);
  } else {
    j.key("cpu_utilization").null();
  }
  j.field("cpu_user_ns", m.cpu_user_ns)
      .field("cpu_system_ns", m.cpu_system_ns)
      .field("minor_faults", m.minor_faults)
      .field("major_faults", m.major_faults)
      .field("voluntary_switches", m.voluntary_switches)
      .field("involuntary_switches", m.involuntary_switches)
      .field("peak_threads", m.peak_threads)
      .field("mean_cpu_frequency_khz", m.mean_cpu_frequency_khz)
      .end_object();
}

void json_process_coverage(JsonWriter& j, const ProcessProfile& p, const SamplingCoverage* c) {
  static const SamplingCoverage kNone;
  const auto& cov = c ? *c : kNone;
  j.field("unsampled_cpu_ns", cov.unsampled_cpu_ns);
  j.key("unsampled_threads").begin_array();
  for (const auto& u : cov.threads) {
    const auto& t = p.threads[u.thread];
    j.begin_object(true)
        .field("tid", t.tid)
        .field("name", t.name)
        .field("cpu_time_ns", u.cpu_time_ns)
        .field("sampled_ns", u.sampled_ns)
        .field("coverage", u.coverage())
        .end_object();
  }
  j.end_array();
  const auto& g = cov.short_threads;
  j.key("unsampled_short_threads")
      .begin_object(true)
      .field("threads", g.threads)
      .field("cpu_time_ns", g.cpu_time_ns)
      .field("sampled_ns", g.sampled_ns)
      .end_object();
}

void json_spread(JsonWriter& j, const RunningStats& s) {
  j.begin_object()
      .field("mean", s.mean())
      .field("min", s.min())
      .field("max", s.max())
      .field("stddev", s.stddev())
      .end_object();
}

void json_profile_views(JsonWriter& j, const Report& r, const RenderOptions& o) {
  const auto& b = r.breakdown;
  j.key("by_thread").begin_array();
  for (size_t i = 0; i < o.rows(b.threads.size()); ++i) {
    const auto& row = b.threads[i];
    const auto& p = r.processes[row.process];
    const auto& t = p.threads[row.thread];
    j.begin_object(true)
        .field("process", static_cast<uint64_t>(row.process))
        .field("pid", p.process.pid)
        .field("rank", row.rank)
        .field("tid", t.tid)
        .field("name", t.name);
    group_fields(j, r, row);
    j.end_object();
  }
  j.end_array();
  j.key("by_process").begin_array();
  for (const auto& row : b.processes) {
    j.begin_object(true)
        .field("process", static_cast<uint64_t>(row.process))
        .field("label", r.processes[row.process].label())
        .field("rank", row.rank)
        .field("threads", row.threads);
    group_fields(j, r, row);
    j.key("per_thread_ns");
    json_spread(j, row.time_per_thread);
    j.end_object();
  }
  j.end_array();
  j.key("by_rank").begin_array();
  for (const auto& row : b.ranks) {
    j.begin_object(true)
        .field("rank", row.rank)
        .field("processes", row.processes)
        .field("threads", row.threads);
    group_fields(j, r, row);
    j.field("mpi_threads_ns", row.mpi_threads.time_ns)
        .field("mpi_wait_ns", row.mpi_wait.time_ns)
        .field("mpi_wait_samples", row.mpi_wait.samples);
    j.key("per_thread_ns");
    json_spread(j, row.time_per_thread);
    j.end_object();
  }
  j.end_array();
  const RankSpread& spread = b.rank_spread;
  j.key("rank_spread").begin_object();
  j.field("ranks", static_cast<uint64_t>(spread.ranks));
  if (spread.ranks > 0) {
    j.key("work_ns");
    json_spread(j, spread.outside_wait_ns);
    j.key("mpi_wait_ns");
    json_spread(j, spread.wait_ns);
  }
  j.field("straggler", spread.straggler)
      .field("straggler_excess", spread.straggler_excess)
      .field("peers_mean_wait_ns", spread.peers_mean_wait_ns);
  j.key("mpi_wait_calls").begin_array();
  for (const auto& [f, m] : spread.wait_calls) {
    j.begin_object(true)
        .field("function", r.symbols.table.functions[f].name)
        .field("samples", m.samples)
        .field("time_ns", m.time_ns)
        .end_object();
  }
  j.end_array();
  j.end_object();
  unsampled(j, r);
  waits(j, r, o);
  counters(j, r, o);
  if (r.tree) tree(j, r);
}

}  // namespace cprof::report
