// `--format coz` and `coz-jsonl`: the report as a Coz profile (coz_writer.h): startup, every
// experiment with its progress points (coz_causal.cpp), the samples per source line, runtime.
// Without experiments (a sampling run) Coz's viewer says the profile has no experiments,
// as it does for Coz's own.
#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "report/render/coz_writer.h"
#include "report/render/json_writer.h"
#include "report/render/render.h"

namespace cprof::report {

std::string coz_field(std::string_view s) {
  std::string out(s);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return out;
}

void CozWriter::record(std::string_view type, std::initializer_list<Field> fields) {
  if (style_ == CozStyle::json_lines) {
    JsonWriter json(out_);
    json.begin_object(/*compact=*/true).field("type", type);
    for (const auto& f : fields) {
      json.key(f.key);
      std::visit([&](const auto& v) { json.value(v); }, f.value);
    }
    json.end_object();  // ends the line
    return;
  }
  out_.append(type);
  for (const auto& f : fields) {
    fmt::format_to(std::back_inserter(out_), "\t{}=", f.key);
    std::visit(
        [&](const auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string_view>) {
            out_ += coz_field(v);
          } else {
            fmt::format_to(std::back_inserter(out_), "{}", v);
          }
        },
        f.value);
  }
  out_ += '\n';
}

void CozWriter::startup(uint64_t time_ns) { record("startup", {{"time", time_ns}}); }

void CozWriter::experiment(std::string_view selected, double speedup, uint64_t duration_ns,
                           uint64_t selected_samples) {
  record("experiment", {{"selected", selected},
                        {"speedup", speedup},
                        {"duration", duration_ns},
                        {"selected-samples", selected_samples}});
}

void CozWriter::throughput_point(std::string_view name, uint64_t delta) {
  record("throughput-point", {{"name", name}, {"delta", delta}});
}

void CozWriter::latency_point(std::string_view name, uint64_t arrivals, uint64_t departures,
                              double difference) {
  record("latency-point", {{"name", name},
                           {"arrivals", arrivals},
                           {"departures", departures},
                           {"difference", difference}});
}

void CozWriter::samples(std::string_view location, uint64_t count) {
  record("samples", {{"location", location}, {"count", count}});
}

void CozWriter::runtime(uint64_t time_ns) { record("runtime", {{"time", time_ns}}); }

std::string render_coz(const Report& r, CozStyle style) {
  std::string out;
  CozWriter coz(out, style);
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
