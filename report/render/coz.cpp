// `--format coz`: the report as a Coz profile (coz_writer.h): startup, every experiment
// with its progress points (coz_causal.cpp), the samples per source line, runtime.
// Without experiments (a sampling run) Coz's viewer says the profile has no experiments,
// as it does for Coz's own.
#include <fmt/format.h>

#include <algorithm>

#include "report/render/coz_writer.h"
#include "report/render/render.h"

namespace cprof::report {

std::string coz_field(std::string_view s) {
  std::string out(s);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return out;
}

void CozWriter::startup(uint64_t time_ns) {
  fmt::format_to(std::back_inserter(out_), "startup\ttime={}\n", time_ns);
}

void CozWriter::experiment(std::string_view selected, double speedup, uint64_t duration_ns,
                           uint64_t selected_samples) {
  fmt::format_to(std::back_inserter(out_),
                 "experiment\tselected={}\tspeedup={}\tduration={}\tselected-samples={}\n",
                 coz_field(selected), speedup, duration_ns, selected_samples);
}

void CozWriter::throughput_point(std::string_view name, uint64_t delta) {
  fmt::format_to(std::back_inserter(out_), "throughput-point\tname={}\tdelta={}\n", coz_field(name),
                 delta);
}

void CozWriter::latency_point(std::string_view name, uint64_t arrivals, uint64_t departures,
                              double difference) {
  fmt::format_to(std::back_inserter(out_),
                 "latency-point\tname={}\tarrivals={}\tdepartures={}\tdifference={}\n",
                 coz_field(name), arrivals, departures, difference);
}

void CozWriter::samples(std::string_view location, uint64_t count) {
  fmt::format_to(std::back_inserter(out_), "samples\tlocation={}\tcount={}\n", coz_field(location),
                 count);
}

void CozWriter::runtime(uint64_t time_ns) {
  fmt::format_to(std::back_inserter(out_), "runtime\ttime={}\n", time_ns);
}

std::string render_coz(const Report& r) {
  std::string out;
  CozWriter coz(out);
  uint64_t start = UINT64_MAX, runtime = 0;
  for (const auto& p : r.processes) {
    if (p.has_process_record && p.process.start_realtime_ns)
      start = std::min(start, p.process.start_realtime_ns);
    runtime = std::max(runtime, p.duration_ns());
  }
  coz.startup(start == UINT64_MAX ? 0 : start);
  coz_experiments(coz, r);
  // Coz counts samples per source line where the line is the innermost frame (self).
  const auto& table = r.symbols.table;
  for (const auto& row : r.flat.lines) {
    const auto& l = table.lines[row.id];
    if (l.file.empty() || row.self.samples == 0) continue;
    coz.samples(fmt::format("{}:{}", l.file, l.line), row.self.samples);
  }
  coz.runtime(runtime);
  return out;
}

}  // namespace cprof::report
