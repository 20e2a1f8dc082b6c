#include "report/load/text_records.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace cprof::report {

namespace {

const std::array<RowSchema, 11>& schemas() {
  static const std::array<RowSchema, 11> s{{
      {"process", {"pid", "ppid", "rank", "hostname", "executable", "start_realtime_ns",
                   "start_monotonic_ns", "engine", "clock", "frequency_hz", "period_ns"}},
      {"module", {"id", "path", "build_id", "load_bias", "start", "end"}},
      {"thread", {"tid", "name", "time_ns"}},
      {"thread_end", {"tid", "time_ns", "cpu_time_ns", "samples", "dropped_samples"}},
      {"thread_name", {"tid", "time_ns", "name"}},
      {"sample", {"tid", "time_ns", "weight_ns", "frames"}},
      {"experiment", {"time_ns", "location", "speedup", "duration_ns", "delay_ns", "period_ns",
                      "selected_samples", "mode"}},
      {"progress", {"name", "visits", "begin", "end", "mean_in_flight"}},
      {"progress_point", {"name", "kind", "source", "file", "line"}},
      {"region", {"name", "count", "mean_ns", "stddev_ns", "min_ns", "max_ns"}},
      {"message", {"time_ns", "level", "text"}},
  }};
  return s;
}

[[noreturn]] void bad(std::string_view field, std::string_view what, std::string_view text) {
  throw RowError(std::string(field) + ": " + std::string(what) + ": '" + std::string(text) + "'");
}

// One of `names` by its text, or the index as a number.
template <size_t N>
uint8_t enum_field(const RowFields& f, std::string_view field,
                   const std::array<std::string_view, N>& names) {
  const std::string s = f.str(field);
  for (size_t i = 0; i < N; ++i) {
    if (s == names[i]) return static_cast<uint8_t>(i);
  }
  if (s.empty()) return 0;
  std::string allowed;
  for (const auto n : names) allowed += (allowed.empty() ? "" : ", ") + std::string(n);
  bad(field, "not one of " + allowed, s);
}

uint32_t u32(const RowFields& f, std::string_view field) {
  const uint64_t v = f.u64(field);
  if (v > UINT32_MAX) bad(field, "too large", std::to_string(v));
  return static_cast<uint32_t>(v);
}

}  // namespace

const RowSchema* find_row_schema(std::string_view type) {
  for (const auto& s : schemas()) {
    if (s.type == type) return &s;
  }
  return nullptr;
}

uint64_t parse_u64_field(std::string_view field, std::string_view text) {
  const bool hex = text.starts_with("0x") || text.starts_with("0X");
  const std::string_view digits = hex ? text.substr(2) : text;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, hex ? 16 : 10);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    bad(field, "not an unsigned integer", text);
  }
  return v;
}

int64_t parse_i64_field(std::string_view field, std::string_view text) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    bad(field, "not an integer", text);
  }
  return v;
}

double parse_f64_field(std::string_view field, std::string_view text) {
  // strtod on a terminated copy: it takes every spelling other tools write ("1e3", "0.5").
  const std::string copy(text);
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(v)) {
    bad(field, "not a number", text);
  }
  return v;
}

void RecordAssembler::flush() {
  if (experiment_) {
    sink_(std::move(*experiment_));
    experiment_.reset();
  }
}

void RecordAssembler::add(const RowSchema& schema, const RowFields& f) {
  const std::string_view t = schema.type;
  if (t == "progress") {
    if (!experiment_) throw RowError("progress row with no experiment row before it");
    experiment_->progress.push_back(format::ProgressDelta{.name = f.str("name"),
                                                          .visits = f.u64("visits"),
                                                          .begin = f.u64("begin"),
                                                          .end = f.u64("end"),
                                                          .mean_in_flight = f.f64("mean_in_flight")});
    return;
  }
  // Build first, so a bad row leaves the open experiment as it was.
  format::Record r;
  if (t == "process") {
    r = format::ProcessRecord{.pid = f.i64("pid"),
                              .ppid = f.i64("ppid"),
                              .rank = f.i64("rank"),
                              .hostname = f.str("hostname"),
                              .executable = f.str("executable"),
                              .start_realtime_ns = f.u64("start_realtime_ns"),
                              .start_monotonic_ns = f.u64("start_monotonic_ns"),
                              .engine = f.str("engine"),
                              .clock = f.str("clock"),
                              .frequency_hz = f.f64("frequency_hz"),
                              .period_ns = f.u64("period_ns")};
  } else if (t == "module") {
    r = format::ModuleRecord{.id = u32(f, "id"),
                             .path = f.str("path"),
                             .build_id = f.str("build_id"),
                             .load_bias = f.u64("load_bias"),
                             .start = f.u64("start"),
                             .end = f.u64("end")};
  } else if (t == "thread") {
    r = format::ThreadRecord{.tid = f.i64("tid"), .name = f.str("name"), .time_ns = f.u64("time_ns")};
  } else if (t == "thread_name") {
    r = format::ThreadNameRecord{.tid = f.i64("tid"), .time_ns = f.u64("time_ns"), .name = f.str("name")};
  } else if (t == "thread_end") {
    r = format::ThreadEndRecord{.tid = f.i64("tid"),
                                .time_ns = f.u64("time_ns"),
                                .cpu_time_ns = f.u64("cpu_time_ns"),
                                .samples = f.u64("samples"),
                                .dropped_samples = f.u64("dropped_samples")};
  } else if (t == "sample") {
    r = format::SampleRecord{.tid = f.i64("tid"),
                             .time_ns = f.u64("time_ns"),
                             .weight_ns = f.u64("weight_ns"),
                             .frames = f.u64_list("frames")};
  } else if (t == "experiment") {
    format::ExperimentRecord e{.time_ns = f.u64("time_ns"),
                               .location = f.str("location"),
                               .speedup = f.f64("speedup"),
                               .duration_ns = f.u64("duration_ns"),
                               .delay_ns = f.u64("delay_ns"),
                               .period_ns = f.u64("period_ns"),
                               .selected_samples = f.u64("selected_samples")};
    if (e.location.empty()) throw RowError("location: empty");
    if (e.speedup < 0 || e.speedup > 1) bad("speedup", "not a fraction from 0 to 1", f.str("speedup"));
    e.mode = static_cast<format::ExperimentMode>(
        enum_field(f, "mode", std::array<std::string_view, 2>{"progress", "end-to-end"}));
    flush();
    experiment_ = std::move(e);
    return;
  } else if (t == "progress_point") {
    r = format::ProgressPointRecord{
        .name = f.str("name"),
        .kind = static_cast<format::ProgressPointKind>(
            enum_field(f, "kind", std::array<std::string_view, 2>{"throughput", "latency"})),
        .source = static_cast<format::ProgressPointSource>(enum_field(
            f, "source", std::array<std::string_view, 3>{"api", "coz", "breakpoint"})),
        .file = f.str("file"),
        .line = u32(f, "line")};
  } else if (t == "region") {
    r = format::RegionRecord{.name = f.str("name"),
                             .count = f.u64("count"),
                             .mean_ns = f.f64("mean_ns"),
                             .stddev_ns = f.f64("stddev_ns"),
                             .min_ns = f.u64("min_ns"),
                             .max_ns = f.u64("max_ns")};
  } else if (t == "message") {
    r = format::MessageRecord{
        .time_ns = f.u64("time_ns"),
        .level = static_cast<format::MessageLevel>(
            enum_field(f, "level", std::array<std::string_view, 3>{"info", "warning", "error"})),
        .text = f.str("text")};
  }
  flush();
  sink_(std::move(r));
}

}  // namespace cprof::report
