// The SQLite database's GPU tables (docs/report.md, "SQLite schema"): gpu_devices with
// their busy share, gpu_idle_gaps (the histogram), kernels and copies one row per
// dispatch or copy, a kernel_summary view, and gpu_trace_windows (the windows the hooks
// traced in, when they traced only part of the run). Launch stacks go into the stacks and
// stack_frames tables after the samples' stacks, so a launch is symbolized with the same
// joins as a sample; kernels and copies also name their launch site directly.
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include "report/render/gpu_render.h"
#include "report/render/sqlite_db.h"

namespace cprof::report {
namespace {

constexpr const char* kGpuSchema = R"sql(
CREATE TABLE gpu_devices (
  id INTEGER PRIMARY KEY, name TEXT, kind TEXT, hostname TEXT, run TEXT, device_id INTEGER,
  kernels INTEGER, queues INTEGER, copies INTEGER, kernel_time_ns INTEGER, busy_ns INTEGER,
  span_start_ns INTEGER, span_ns INTEGER, busy_fraction REAL, in_windows INTEGER,
  windows INTEGER);
CREATE TABLE gpu_idle_gaps (
  device_id INTEGER REFERENCES gpu_devices(id), bucket INTEGER, low_us INTEGER, high_us INTEGER,
  gaps INTEGER, time_ns INTEGER);
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id),
  thread_id INTEGER REFERENCES threads(id), tid INTEGER,
  device_id INTEGER REFERENCES gpu_devices(id), queue_id INTEGER, name TEXT,
  submit_ns INTEGER, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER,
  dispatch_id INTEGER, correlation_id INTEGER, grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
  workgroup_x INTEGER, workgroup_y INTEGER, workgroup_z INTEGER,
  stack_id INTEGER REFERENCES stacks(id), launch_function_id INTEGER REFERENCES functions(id),
  launch_line_id INTEGER REFERENCES lines(id));
CREATE TABLE copies (
  id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id),
  thread_id INTEGER REFERENCES threads(id), tid INTEGER, direction TEXT, bytes INTEGER,
  src_device_id INTEGER REFERENCES gpu_devices(id), dst_device_id INTEGER REFERENCES gpu_devices(id),
  submit_ns INTEGER, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, correlation_id INTEGER,
  stack_id INTEGER REFERENCES stacks(id), launch_function_id INTEGER REFERENCES functions(id),
  launch_line_id INTEGER REFERENCES lines(id));
CREATE TABLE gpu_trace_windows (
  process_id INTEGER REFERENCES processes(id), start_ns INTEGER, end_ns INTEGER,
  duration_ns INTEGER, duty REAL, period_ns INTEGER, inferred INTEGER);
-- Per kernel name over every process: calls and time (untimed calls count, without time).
CREATE VIEW kernel_summary AS
  SELECT name, COUNT(*) AS calls, SUM(duration_ns) AS total_ns, AVG(duration_ns) AS mean_ns,
         MIN(duration_ns) AS min_ns, MAX(duration_ns) AS max_ns
  FROM kernels GROUP BY name ORDER BY total_ns DESC, calls DESC;
)sql";

using Value = std::optional<int64_t>;  // nullopt: NULL

Value device_id(const std::vector<uint32_t>& rows, uint32_t d) {
  return d < rows.size() && rows[d] != ~0u ? Value(rows[d]) : std::nullopt;
}

}  // namespace

void write_sqlite_gpu(Db& db, const Report& r) {
  const auto& g = r.gpu;
  db.exec(kGpuSchema);  // the tables exist (empty) without GPU records too: queries still run
  auto* devices = db.prepare("INSERT INTO gpu_devices VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  auto* gaps = db.prepare("INSERT INTO gpu_idle_gaps VALUES (?,?,?,?,?,?)");
  for (size_t d = 0; d < g.devices.size(); ++d) {
    const auto& x = g.devices[d];
    db.row(devices, d, x.name, device_kind_name(x.kind), x.hostname, x.run, x.record_id, x.kernels,
                x.queues, x.copies, x.kernel_ns, x.busy.busy_ns, x.busy.span_start_ns,
                x.busy.span_ns(), x.busy.busy_fraction(), x.busy.in_windows ? 1 : 0,
                x.busy.windows);
    for (size_t b = 0; b < kIdleGapBuckets; ++b) {
      const uint64_t low = b == 0 ? 0 : kIdleGapBoundsUs[b - 1];
      const Value high = b < kIdleGapBoundsUs.size() ? Value(kIdleGapBoundsUs[b]) : std::nullopt;
      db.row(gaps, d, b, low, high, x.busy.gap_counts[b], x.busy.gap_ns[b]);
    }
  }

  // As recorded, then the windows inferred from launches after the last record
  // (report/profile/gpu_tracing.h), with the process's largest duty and period.
  auto* windows = db.prepare("INSERT INTO gpu_trace_windows VALUES (?,?,?,?,?,?,?)");
  for (size_t pi = 0; pi < r.processes.size() && db.ok(); ++pi) {
    for (const auto& w : r.processes[pi].gpu.trace_windows)
      db.row(windows, pi, w.start_ns, w.end_ns, w.end_ns - w.start_ns, w.duty, w.period_ns, 0);
    const auto& t = g.tracing.by_process[pi];
    for (size_t i = t.windows.size() - t.inferred_windows; i < t.windows.size(); ++i) {
      const auto& w = t.windows[i];
      db.row(windows, pi, w.start_ns, w.end_ns, w.length_ns(), t.duty_max, t.period_max_ns, 1);
    }
  }

  auto* kernels =
      db.prepare("INSERT INTO kernels VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  auto* copies = db.prepare("INSERT INTO copies VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  auto* stacks = db.prepare("INSERT INTO stacks VALUES (?,?,?)");
  auto* stack_frames = db.prepare("INSERT INTO stack_frames VALUES (?,?,?)");
  // Ids continue where the samples' stacks and the threads of write_sqlite stopped.
  uint64_t stack_base = 0, thread_base = 0;
  for (const auto& p : r.processes) stack_base += p.stacks.size();
  uint64_t kernel_id = 0, copy_id = 0;
  for (size_t pi = 0; pi < r.processes.size() && db.ok(); ++pi) {
    const auto& p = r.processes[pi];
    const auto& gpu = p.gpu;
    std::unordered_map<int64_t, uint64_t> thread_of;
    for (size_t t = 0; t < p.threads.size(); ++t) thread_of.emplace(p.threads[t].tid, thread_base + t);
    const auto thread = [&](int64_t tid) {
      const auto it = thread_of.find(tid);
      return it == thread_of.end() ? std::nullopt : Value(it->second);
    };
    const auto& locations = r.symbols.launch_frame_locations[pi];
    for (uint32_t s = 0; s < gpu.launch_stacks.size(); ++s) {
      const auto frames = gpu.launch_stacks.frames(s);
      db.row(stacks, stack_base + s, pi, frames.size());
      for (size_t d = 0; d < frames.size(); ++d)
        db.row(stack_frames, stack_base + s, d, locations[gpu.launch_stacks.offset(s) + d]);
    }
    const auto& sites = g.stack_site[pi];
    const auto launch = [&](uint32_t stack) {
      if (stack == kNoLaunchStack) return std::tuple<Value, Value, Value>{};
      const auto& site = sites[stack];
      return std::tuple<Value, Value, Value>{stack_base + stack, site.function, site.line};
    };
    const auto& rows = g.device_row[pi];
    for (const auto& k : gpu.kernels) {
      const auto [stack, function, line] = launch(k.stack);
      db.row(kernels, kernel_id++, pi, thread(k.tid), k.tid, device_id(rows, k.device), k.queue_id,
                  gpu_kernel_label(gpu.kernel_names[k.name]), k.submit_ns, k.start_ns, k.end_ns,
                  k.timed() ? Value(k.duration_ns()) : std::nullopt, k.dispatch_id,
                  k.correlation_id, k.grid[0], k.grid[1], k.grid[2], k.workgroup[0],
                  k.workgroup[1], k.workgroup[2], stack, function, line);
    }
    for (const auto& c : gpu.copies) {
      const auto [stack, function, line] = launch(c.stack);
      db.row(copies, copy_id++, pi, thread(c.tid), c.tid, copy_direction_name(c.direction), c.bytes,
                 device_id(rows, c.src_device), device_id(rows, c.dst_device), c.submit_ns,
                 c.start_ns, c.end_ns, c.timed() ? Value(c.duration_ns()) : std::nullopt,
                 c.correlation_id, stack, function, line);
    }
    stack_base += gpu.launch_stacks.size();
    thread_base += p.threads.size();
  }
}

}  // namespace cprof::report
