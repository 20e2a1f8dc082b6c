#pragma once
// The runtime's settings. The launcher (sample-run, causal-run) passes them through
// environment variables so that they survive fork and exec; docs/sampler.md lists them.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sampler/unwind/module_table.h"

namespace cprof::sampler {

struct RuntimeConfig {
  std::string output_dir = "results";
  double frequency_hz = 500;
  std::string backend = "perf";  // "perf" or "timer"
  bool wall_clock = false;       // also sample wall time
  std::string unwinder = "dwarf";
  unsigned max_depth = 128;
  std::vector<std::string> events;
  int signal = 0;                // 0: the default real-time signal
  unsigned flush_interval_ms = 50;
  unsigned metrics_interval_ms = 200;
  std::string preload_library;   // re-added to an exec'd program's environment
  // Every CPROF_ variable as the runtime started ("NAME=value"): an exec'd image gets
  // them from here, since the program may have cleared its environment (env -i, clearenv).
  std::vector<std::string> profiling_environment;
};

// Reads CPROF_* variables; unset ones keep their defaults. Invalid values produce
// messages in `problems` (the runtime reports them in the results) and the default.
RuntimeConfig config_from_environment(std::vector<std::string>& problems);

// The variables a launcher sets for the runtime to read `config` back (its output
// directory, frequency, backend, clock, unwinder, depth, events and preloaded library),
// as NAME and value pairs: the inverse of config_from_environment.
std::vector<std::pair<std::string, std::string>> environment_of(const RuntimeConfig& config);

// When the runtime parses CFI tables: CPROF_CFI_TABLES=first-want (at the writer's first
// tick after a sample asked, the rule before rent-or-buy) or eager (at start); unset or
// anything else: on demand, once a module's table pays for itself (cfi_policy.h). A test
// knob: tests of forks racing the writer's parsing need parsing to happen.
CfiTables cfi_tables_from_environment();

// The variable names, shared with the launchers.
namespace env {
inline constexpr const char* kOutputDir = "CPROF_OUTPUT_DIR";
inline constexpr const char* kFrequency = "CPROF_FREQUENCY";
inline constexpr const char* kBackend = "CPROF_BACKEND";
inline constexpr const char* kClock = "CPROF_CLOCK";
inline constexpr const char* kUnwind = "CPROF_UNWIND";
inline constexpr const char* kDepth = "CPROF_DEPTH";
inline constexpr const char* kEvents = "CPROF_EVENTS";
inline constexpr const char* kSignal = "CPROF_SIGNAL";
inline constexpr const char* kFlushMs = "CPROF_FLUSH_MS";
inline constexpr const char* kPreload = "CPROF_PRELOAD";
inline constexpr const char* kCfiTables = "CPROF_CFI_TABLES";  // tests only
// Read by the GPU hooks (gpu/common/trace_windows.h), set by --gpu-duty.
inline constexpr const char* kGpuDuty = "CPROF_GPU_DUTY";          // percent traced
inline constexpr const char* kGpuPeriodMs = "CPROF_GPU_PERIOD_MS";  // the windows' period
}  // namespace env

}  // namespace cprof::sampler
