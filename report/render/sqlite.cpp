// `--format sqlite -o FILE`: the report as a SQLite database, in the spirit of rocpd: one
// table per kind of thing, integer ids, names stored once. The schema (kSchema below) is
// documented in docs/report.md; `schema_version` in `meta` changes when a column changes
// meaning. Samples are stored aggregated: one row per (thread, distinct stack) with its
// count, time and counter sums -- what every view is computed from.
#include <sqlite3.h>

#include <filesystem>
#include <optional>
#include <system_error>

#include "report/render/gpu_render.h"
#include "report/render/render.h"
#include "report/render/sqlite_causal.h"
#include "report/render/sqlite_db.h"

namespace cprof::report {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE processes (
  id INTEGER PRIMARY KEY, file TEXT, run TEXT, pid INTEGER, ppid INTEGER, rank INTEGER,
  hostname TEXT, executable TEXT, command_line TEXT, engine TEXT, clock TEXT, unwinder TEXT,
  frequency_hz REAL, period_ns INTEGER, start_realtime_ns INTEGER, start_monotonic_ns INTEGER,
  duration_ns INTEGER, samples INTEGER, time_ns INTEGER, truncated_samples INTEGER,
  dropped_samples INTEGER, peak_rss_bytes INTEGER, cpu_utilization REAL, profile_clock TEXT,
  other_clock_samples INTEGER, other_clock_time_ns INTEGER);
CREATE TABLE threads (
  id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id), tid INTEGER, name TEXT,
  start_ns INTEGER, end_ns INTEGER, cpu_time_ns INTEGER, samples INTEGER, time_ns INTEGER,
  dropped_samples INTEGER, cpu_sampled_ns INTEGER);
CREATE TABLE modules (id INTEGER PRIMARY KEY, path TEXT, build_id TEXT);
CREATE TABLE process_modules (
  process_id INTEGER REFERENCES processes(id), module_id INTEGER REFERENCES modules(id),
  load_bias INTEGER, start INTEGER, end INTEGER, time_ns INTEGER);
CREATE TABLE functions (
  id INTEGER PRIMARY KEY, name TEXT, module TEXT, file TEXT, line INTEGER);
CREATE TABLE lines (
  id INTEGER PRIMARY KEY, file TEXT, line INTEGER, function_id INTEGER REFERENCES functions(id));
CREATE TABLE locations (
  id INTEGER PRIMARY KEY, module_id INTEGER REFERENCES modules(id), address INTEGER);
CREATE TABLE location_frames (
  location_id INTEGER REFERENCES locations(id), depth INTEGER,
  function_id INTEGER REFERENCES functions(id), line_id INTEGER REFERENCES lines(id),
  PRIMARY KEY (location_id, depth)) WITHOUT ROWID;
CREATE TABLE stacks (
  id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id), depth INTEGER);
CREATE TABLE stack_frames (
  stack_id INTEGER REFERENCES stacks(id), depth INTEGER,
  location_id INTEGER REFERENCES locations(id),
  PRIMARY KEY (stack_id, depth)) WITHOUT ROWID;
CREATE TABLE samples (
  thread_id INTEGER REFERENCES threads(id), stack_id INTEGER REFERENCES stacks(id),
  count INTEGER, time_ns INTEGER);
CREATE TABLE events (
  process_id INTEGER REFERENCES processes(id), event_index INTEGER, name TEXT,
  canonical_name TEXT, status TEXT, detail TEXT);
CREATE TABLE sample_counters (
  thread_id INTEGER REFERENCES threads(id), stack_id INTEGER REFERENCES stacks(id),
  event_index INTEGER, value INTEGER);
CREATE TABLE metrics (
  process_id INTEGER REFERENCES processes(id), time_ns INTEGER, rss_bytes INTEGER,
  cpu_user_ns INTEGER, cpu_system_ns INTEGER, minor_faults INTEGER, major_faults INTEGER,
  voluntary_switches INTEGER, involuntary_switches INTEGER, threads INTEGER,
  cpu_frequency_khz INTEGER);
CREATE TABLE messages (
  process_id INTEGER REFERENCES processes(id), time_ns INTEGER, level TEXT, text TEXT);
-- Where threads waited off CPU, by call and caller (profile/wait_view.h).
CREATE TABLE waits (
  call TEXT, function_id INTEGER REFERENCES functions(id), own_code INTEGER,
  caller_function_id INTEGER REFERENCES functions(id), caller_line_id INTEGER REFERENCES lines(id),
  off_cpu_ns INTEGER, off_cpu_half_width_ns INTEGER, stands_out INTEGER,
  threads INTEGER, wall_samples INTEGER, wall_ns INTEGER, cpu_samples INTEGER, cpu_ns INTEGER);
-- Self time per function: the innermost inline frame of each stack's first location.
CREATE VIEW function_self AS
  SELECT f.id AS function_id, f.name AS function, SUM(s.count) AS samples, SUM(s.time_ns) AS time_ns
  FROM samples s
  JOIN stack_frames sf ON sf.stack_id = s.stack_id AND sf.depth = 0
  JOIN location_frames lf ON lf.location_id = sf.location_id AND lf.depth = 0
  JOIN functions f ON f.id = lf.function_id
  GROUP BY f.id ORDER BY time_ns DESC, samples DESC;
)sql";

const char* status_name(format::EventStatus s) {
  switch (s) {
    case format::EventStatus::ok:
      return "ok";
    case format::EventStatus::unavailable:
      return "unavailable";
    case format::EventStatus::counted_zero:
      return "counted_zero";
  }
  return "unknown";
}

}  // namespace

std::string write_sqlite(const Report& r, const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);  // a fresh database, never rows appended to an old one
  Db db(path);
  db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;");
  db.exec(kSchema);
  const auto& table = r.symbols.table;

  auto* meta = db.prepare("INSERT INTO meta VALUES (?, ?)");
  db.row(meta, "schema_version", "1");
  db.row(meta, "generator", "causal-report");
  db.row(meta, "symbols", table.source);

  auto* modules = db.prepare("INSERT INTO modules VALUES (?, ?, ?)");
  for (size_t m = 0; m < table.modules.size(); ++m)
    db.row(modules, m, table.modules[m].path, table.modules[m].build_id);
  auto* functions = db.prepare("INSERT INTO functions VALUES (?, ?, ?, ?, ?)");
  for (size_t f = 0; f < table.functions.size(); ++f) {
    const auto& fn = table.functions[f];
    db.row(functions, f, fn.name, fn.module, fn.file, fn.line);
  }
  auto* lines = db.prepare("INSERT INTO lines VALUES (?, ?, ?, ?)");
  for (size_t l = 0; l < table.lines.size(); ++l) {
    db.row(lines, l, table.lines[l].file, table.lines[l].line, table.lines[l].function);
  }
  auto* locations = db.prepare("INSERT INTO locations VALUES (?, ?, ?)");
  auto* location_frames = db.prepare("INSERT INTO location_frames VALUES (?, ?, ?, ?)");
  for (uint32_t l = 0; l < table.locations(); ++l) {
    if (table.location_module[l] == SymbolTable::kNoModule) {
      db.row(locations, l, nullptr, nullptr);
    } else {
      db.row(locations, l, table.location_module[l], table.location_address[l]);
    }
    const auto chain = table.frames_of(l);
    for (size_t d = 0; d < chain.size(); ++d)
      db.row(location_frames, l, d, chain[d].function, chain[d].line);
  }

  auto* processes =
      db.prepare("INSERT INTO processes VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  auto* threads = db.prepare("INSERT INTO threads VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  auto* process_modules = db.prepare("INSERT INTO process_modules VALUES (?,?,?,?,?,?)");
  auto* stacks = db.prepare("INSERT INTO stacks VALUES (?,?,?)");
  auto* stack_frames = db.prepare("INSERT INTO stack_frames VALUES (?,?,?)");
  auto* samples = db.prepare("INSERT INTO samples VALUES (?,?,?,?)");
  auto* events = db.prepare("INSERT INTO events VALUES (?,?,?,?,?,?)");
  auto* sample_counters = db.prepare("INSERT INTO sample_counters VALUES (?,?,?,?)");
  auto* metrics = db.prepare("INSERT INTO metrics VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  auto* messages = db.prepare("INSERT INTO messages VALUES (?,?,?,?)");
  uint64_t thread_base = 0, stack_base = 0;
  for (size_t pi = 0; pi < r.processes.size() && db.ok(); ++pi) {
    const auto& p = r.processes[pi];
    const auto& pr = p.process;
    std::string command_line;
    for (const auto& a : pr.command_line) command_line += (command_line.empty() ? "" : " ") + a;
    const double cpu = p.cpu_utilization();
    db.row(processes, pi, p.file.string(), p.run, pr.pid, pr.ppid, pr.rank, pr.hostname,
           pr.executable, command_line, pr.engine, pr.clock, pr.unwinder, pr.frequency_hz,
           pr.period_ns, pr.start_realtime_ns, pr.start_monotonic_ns, p.duration_ns(), p.samples,
           p.weight_ns, p.truncated_samples, p.dropped_samples(), p.peak_rss_bytes(),
           cpu >= 0 ? std::optional<double>(cpu) : std::nullopt, p.clock_name(),
           p.other_clock_samples, p.other_clock_weight_ns);
    for (size_t t = 0; t < p.threads.size(); ++t) {
      const auto& th = p.threads[t];
      db.row(threads, thread_base + t, pi, th.tid, th.name, th.start_ns, th.end_ns, th.cpu_time_ns,
             th.samples, th.weight_ns, th.dropped_samples, th.cpu_weight_ns);
    }
    for (const auto& m : p.modules) {
      uint64_t id = 0;
      for (; id < table.modules.size(); ++id) {
        if (table.modules[id].path == m.path && table.modules[id].build_id == m.build_id) break;
      }
      db.row(process_modules, pi, id, m.load_bias, m.start, m.end, m.time_ns);
    }
    const auto& frame_locations = r.symbols.frame_locations[pi];
    for (uint32_t s = 0; s < p.stacks.size(); ++s) {
      const auto frames = p.stacks.frames(s);
      db.row(stacks, stack_base + s, pi, frames.size());
      for (size_t d = 0; d < frames.size(); ++d) {
        db.row(stack_frames, stack_base + s, d, frame_locations[p.stacks.offset(s) + d]);
      }
    }
    for (const auto& c : p.counts) {
      db.row(samples, thread_base + c.thread, stack_base + c.stack, c.samples, c.weight_ns);
    }
    // Counter deltas of the profile's samples and of the other clock's, set aside (each
    // sample is in one of the two): a (thread, stack) may have a row from each; sum them.
    for (const auto* counts : {&p.counts, &p.other_clock_counts}) {
      for (const auto& c : *counts) {
        for (size_t e = 0; e < c.counters.size(); ++e) {
          if (c.counters[e])
            db.row(sample_counters, thread_base + c.thread, stack_base + c.stack, e, c.counters[e]);
        }
      }
    }
    for (const auto& e : p.events)
      db.row(events, pi, e.index, e.name, e.canonical_name, status_name(e.status), e.detail);
    for (const auto& m : p.metrics) {
      db.row(metrics, pi, m.time_ns, m.rss_bytes, m.cpu_user_ns, m.cpu_system_ns, m.minor_faults,
             m.major_faults, m.voluntary_switches, m.involuntary_switches, m.threads,
             m.cpu_frequency_khz);
    }
    for (const auto& m : p.messages) {
      static constexpr const char* kLevel[] = {"info", "warning", "error"};
      const auto level = static_cast<size_t>(m.level);
      db.row(messages, pi, m.time_ns, level < 3 ? kLevel[level] : "unknown", m.text);
    }
    thread_base += p.threads.size();
    stack_base += p.stacks.size();
  }
  auto* waits = db.prepare("INSERT INTO waits VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& w : r.waits.rows) {
    const auto caller = [&](uint32_t id) {
      return w.has_caller ? std::optional<int64_t>(id) : std::nullopt;
    };
    db.row(waits, wait_call_name(table, w), w.call, w.own_code ? 1 : 0, caller(w.caller),
           caller(w.caller_line), w.off_cpu_ns(), w.half_width_ns, w.stands_out ? 1 : 0, w.threads,
           w.wall.samples, w.wall.time_ns, w.cpu.samples, w.cpu.time_ns);
  }
  write_sqlite_causal(db, r);  // experiments, progress, regions (sqlite_causal.cpp)
  write_sqlite_gpu(db, r);     // kernels, copies, GPU devices (sqlite_gpu.cpp)
  db.exec("CREATE INDEX samples_stack ON samples(stack_id); COMMIT;");
  return db.ok() ? "" : db.error();
}

}  // namespace cprof::report
