#include "sampler/runtime/config.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "sampler/events/event_resolver.h"

namespace cprof::sampler {
namespace {

const char* get(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

template <typename T>
void parse_number(const char* name, T low, T high, T& out, std::vector<std::string>& problems) {
  const char* v = get(name);
  if (v == nullptr) return;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (end == v || *end != '\0' || d < static_cast<double>(low) || d > static_cast<double>(high)) {
    problems.push_back(std::string(name) + "='" + v + "' is not a number in range; using default");
    return;
  }
  out = static_cast<T>(d);
}

}  // namespace

CfiTables cfi_tables_from_environment() {
  const char* v = get(env::kCfiTables);
  if (v != nullptr && std::string_view(v) == "first-want") return CfiTables::on_first_want;
  if (v != nullptr && std::string_view(v) == "eager") return CfiTables::eager;
  return CfiTables::on_demand;
}

RuntimeConfig config_from_environment(std::vector<std::string>& problems) {
  RuntimeConfig c;
  if (const char* v = get(env::kOutputDir)) c.output_dir = v;
  parse_number(env::kFrequency, 1.0, 100000.0, c.frequency_hz, problems);
  if (const char* v = get(env::kBackend)) {
    if (std::string_view(v) == "perf" || std::string_view(v) == "timer") {
      c.backend = v;
    } else {
      problems.push_back(std::string(env::kBackend) + "='" + v + "' unknown; using perf");
    }
  }
  if (const char* v = get(env::kClock)) {
    if (std::string_view(v) == "wall") {
      c.wall_clock = true;
    } else if (std::string_view(v) != "cpu") {
      problems.push_back(std::string(env::kClock) + "='" + v + "' unknown; using cpu");
    }
  }
  if (const char* v = get(env::kUnwind)) c.unwinder = v;
  parse_number(env::kDepth, 1u, 1024u, c.max_depth, problems);
  if (const char* v = get(env::kEvents)) c.events = split_event_list(v);
  parse_number(env::kSignal, 1, 64, c.signal, problems);
  parse_number(env::kFlushMs, 1u, 10000u, c.flush_interval_ms, problems);
  if (const char* v = get(env::kPreload)) c.preload_library = v;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "CPROF_", 6) == 0) c.profiling_environment.emplace_back(*e);
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> environment_of(const RuntimeConfig& config) {
  char frequency[32];
  const auto written = std::to_chars(frequency, frequency + sizeof frequency, config.frequency_hz,
                                     std::chars_format::general);
  std::string events;
  for (const auto& e : config.events) events += (events.empty() ? "" : ",") + e;
  return {
      {env::kPreload, config.preload_library},
      {env::kOutputDir, config.output_dir},
      {env::kFrequency, std::string(frequency, written.ptr)},
      {env::kBackend, config.backend},
      {env::kClock, config.wall_clock ? "wall" : "cpu"},
      {env::kUnwind, config.unwinder},
      {env::kDepth, std::to_string(config.max_depth)},
      {env::kEvents, events},
  };
}

}  // namespace cprof::sampler
