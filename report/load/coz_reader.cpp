// Coz profiles (profile.coz) as input: the lines Coz's profiler writes and its viewer
// reads (viewer/ts/profile.ts), tab-separated `key=value` after the type, or one JSON
// object a line (Coz's JSON output):
//
//   startup / runtime / shutdown / samples   read past (no stacks to count)
//   experiment        selected=FILE:LINE speedup=F duration=NS selected-samples=N
//   throughput-point  name=NAME delta=N         (older Coz: progress-point)
//   latency-point     name=NAME arrivals=N departures=N difference=N
//
// Coz's duration is already net of the delays it inserted (wall - delay), so it becomes
// an experiment record with that duration and no delay: the same effective duration.
// Each point line belongs to the experiment line above it.
#include <istream>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "report/load/json_value.h"
#include "report/load/text_input.h"
#include "report/load/text_records.h"

namespace cprof::report {
namespace {

using Fields = std::map<std::string, std::string, std::less<>>;

std::string field(const Fields& f, std::string_view key) {
  const auto it = f.find(key);
  if (it == f.end()) throw RowError("no " + std::string(key) + "= field");
  return it->second;
}

// Coz writes counts as integers but a JSON writer may add ".0"; take either.
uint64_t count_field(const Fields& f, std::string_view key) {
  const std::string s = field(f, key);
  const double v = parse_f64_field(key, s);
  if (v < 0) throw RowError(std::string(key) + ": negative: '" + s + "'");
  if (s.find_first_of(".eE") == std::string::npos) return parse_u64_field(key, s);
  // 2^64 and above do not convert (undefined behaviour, found by fuzz_text_inputs).
  if (!(v < 18446744073709551616.0)) {
    throw RowError(std::string(key) + ": too large for a count: '" + s + "'");
  }
  return static_cast<uint64_t>(v);
}

// One line as its type and fields, from either spelling.
std::string split_line(const std::string& line, Fields& out) {
  out.clear();
  if (line[0] == '{') {
    const JsonValue v = parse_json(line);
    if (v.kind != JsonValue::Kind::object) throw RowError("not a JSON object");
    std::string type;
    for (const auto& [k, m] : v.members) {
      std::string key = k;
      for (auto& c : key) c = c == '_' ? '-' : c;  // JSON: selected_samples
      if (key == "type") {
        type = m.text;
      } else {
        out[key] = m.text;
      }
    }
    for (auto& c : type) c = c == '_' ? '-' : c;  // JSON: throughput_point
    return type;
  }
  std::string_view rest(line);
  const size_t tab = rest.find('\t');
  std::string type(rest.substr(0, tab));
  rest = tab == std::string_view::npos ? std::string_view() : rest.substr(tab + 1);
  while (!rest.empty()) {
    const size_t next = rest.find('\t');
    const std::string_view part = rest.substr(0, next);
    if (const size_t eq = part.find('='); eq != std::string_view::npos) {
      out[std::string(part.substr(0, eq))] = std::string(part.substr(eq + 1));
    }
    if (next == std::string_view::npos) break;
    rest.remove_prefix(next + 1);
  }
  return type;
}

}  // namespace

void read_coz_lines(std::istream& in, const std::string& name, const RecordSink& sink,
                    std::vector<std::string>& warnings) {
  // The experiment the next point lines belong to (a flag, not std::optional: GCC 12
  // warns "may be used uninitialized" on assigning to an optional of it).
  format::ExperimentRecord experiment;
  bool open = false;
  std::set<std::string> points_seen;
  bool started = false;
  const auto flush = [&] {
    if (open) sink(std::move(experiment));
    open = false;
  };
  const auto point = [&](const std::string& point_name, format::ProgressPointKind kind) {
    if (points_seen.insert(point_name).second) {
      sink(format::ProgressPointRecord{.id = static_cast<uint32_t>(points_seen.size()),
                                       .name = point_name,
                                       .kind = kind,
                                       .source = format::ProgressPointSource::coz});
    }
  };
  std::string line;
  Fields f;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    try {
      const std::string type = split_line(line, f);
      if (type == "startup") {
        // Coz appends every run to one profile.coz: the first start stands for the file.
        if (!started) {
          sink(format::ProcessRecord{.executable = name,
                                     .start_realtime_ns = count_field(f, "time"),
                                     .engine = "coz"});
        }
        started = true;
      } else if (type == "experiment") {
        format::ExperimentRecord e{.location = field(f, "selected"),
                                   .speedup = parse_f64_field("speedup", field(f, "speedup")),
                                   .duration_ns = count_field(f, "duration")};
        if (f.contains("selected-samples")) e.selected_samples = count_field(f, "selected-samples");
        if (e.speedup < 0 || e.speedup > 1) {
          throw RowError("speedup: not a fraction from 0 to 1: '" + field(f, "speedup") + "'");
        }
        flush();
        experiment = std::move(e);
        open = true;
      } else if (type == "throughput-point" || type == "progress-point") {
        if (!open) throw RowError(type + " with no experiment line before it");
        const uint64_t delta = count_field(f, "delta");
        const std::string n = field(f, "name");
        point(n, format::ProgressPointKind::throughput);
        experiment.progress.push_back(format::ProgressDelta{.name = n, .visits = delta});
      } else if (type == "latency-point") {
        if (!open) throw RowError("latency-point with no experiment line before it");
        const std::string n = field(f, "name");
        format::ProgressDelta d{.name = n,
                                .begin = count_field(f, "arrivals"),
                                .end = count_field(f, "departures"),
                                .mean_in_flight = parse_f64_field("difference", field(f, "difference"))};
        point(n, format::ProgressPointKind::latency);
        experiment.progress.push_back(std::move(d));
      } else if (type != "runtime" && type != "shutdown" && type != "samples") {
        throw RowError("unknown line type '" + type + "'");
      }
    } catch (const std::exception& e) {
      warnings.push_back(name + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  flush();
}

}  // namespace cprof::report
