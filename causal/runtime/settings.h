#pragma once
// The causal runtime's settings, passed by causal-run in CPROF_CAUSAL_* environment
// variables (next to the sampling runtime's CPROF_* ones, sampler/runtime/config.h), so
// that they survive fork and exec. docs/causal.md lists them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "causal/experiment.h"
#include "causal/runtime/peer_wait_api.h"
#include "causal/visit_counter.h"

namespace cprof::causal {

namespace env {
// A file of locations (one a line: "NAME<TAB>START-END[,START-END...][<TAB>MODULE]", hex
// ELF addresses of the executable named below, or of the library MODULE). Written by
// causal-run, read at start.
inline constexpr const char* kLocations = "CPROF_CAUSAL_LOCATIONS";
// The executable the locations' addresses belong to (absolute path). Unset with a
// resolver: none, every image resolves the selection for itself (causal-run started a
// system program without debug information, bash -c or env, to run the program).
inline constexpr const char* kExecutable = "CPROF_CAUSAL_EXECUTABLE";
// For an exec'd program other than that executable: causal-run's path and the selection
// as its arguments (TAB-separated), to resolve the same selection for the new program.
inline constexpr const char* kResolver = "CPROF_CAUSAL_RESOLVER";
inline constexpr const char* kSelectionArgs = "CPROF_CAUSAL_SELECTION_ARGS";
// A directory the processes of one run share resolved locations through (locations_cache.h).
inline constexpr const char* kLocationsCache = "CPROF_CAUSAL_LOCATIONS_CACHE";
// "fixed": experiments draw from every location of the file (--line, --function);
// "auto": from the locations the samples fall in.
inline constexpr const char* kSelection = "CPROF_CAUSAL_SELECTION";
inline constexpr const char* kSpeedups = "CPROF_CAUSAL_SPEEDUPS";           // percentages
inline constexpr const char* kFixedSpeedup = "CPROF_CAUSAL_FIXED_SPEEDUP";  // percentage
inline constexpr const char* kSeed = "CPROF_CAUSAL_SEED";
inline constexpr const char* kDurationMs = "CPROF_CAUSAL_DURATION_MS";  // first and shortest
inline constexpr const char* kCooloffMs = "CPROF_CAUSAL_COOLOFF_MS";
inline constexpr const char* kBaselineShare = "CPROF_CAUSAL_BASELINE_SHARE";
// Warm-up before each experiment's measurement, as a share of its duration (0: none).
inline constexpr const char* kWarmupShare = "CPROF_CAUSAL_WARMUP_SHARE";
// End-to-end mode: this run's speedup (percentage); the whole run is one experiment.
inline constexpr const char* kEndToEndSpeedup = "CPROF_CAUSAL_END_TO_END_SPEEDUP";
// Hardware-breakpoint progress points: "NAME<TAB>HEXADDR[<TAB>LIBRARY[<TAB>PLAN]]" separated
// by newlines; LIBRARY (a path) for a point in a library loaded at start, empty for the
// executable; PLAN, where the launcher found the place's code movable, a patch plan
// (causal/patch_plan.h) by which the runtime counts in the program's code.
inline constexpr const char* kBreakpoints = "CPROF_CAUSAL_BREAKPOINTS";
// How their visits are counted: "breakpoint" (the default) or "uprobe" (visit_counter.h).
inline constexpr const char* kVisitCounter = "CPROF_CAUSAL_VISIT_COUNTER";
// Percentage of their ready time the threads waited for a CPU from which the run warns
// that the predictions come out small (cpu_wait.h); 0 always says the share.
inline constexpr const char* kCpuWaitWarnPercent = "CPROF_CAUSAL_CPU_WAIT_WARN";
// Region spans kept per process (region_spans.h); 0: none. Read by the runtime at start
// (causal_runtime.cpp), not with the settings above: causal-run passes it through unchanged.
inline constexpr const char* kRegionSpans = "CPROF_CAUSAL_REGION_SPANS";
// An MPI job's key (causal-run sets it under mpirun): the ranks run their experiments in
// lockstep and share the delay count (causal/job_lockstep.h). Unset: each process alone.
inline constexpr const char* kJob = "CPROF_CAUSAL_JOB";
// In an MPI job (causal-run --rank): only this rank's samples of the selected location
// count; the other ranks run the same experiments and pay the delays.
inline constexpr const char* kOnlyRank = "CPROF_CAUSAL_ONLY_RANK";
// "1": each rank acts as if alone on its host (its own shared page; the MPI wrappers
// exchange the delay counts at collectives as across hosts). For tests on one machine.
inline constexpr const char* kHostPerRank = CPROF_HOST_PER_RANK_ENV;
// "1": every selected sample's delay counts whole at its instant, as before delays were
// split at blocks and wake-ups by time (delays.h, "Periods"). For side-by-side figures.
inline constexpr const char* kWholeSamples = "CPROF_CAUSAL_WHOLE_SAMPLES";
}  // namespace env

// The info message an automatic run's process leaves when none of its samples had a frame
// in a location it may select (so it could start no experiment); causal-run looks for it
// to say why there was none.
inline constexpr const char* kNoSampleInScopeMessage =
    "automatic selection: no sample had a frame in the code it may select";

// The info message a process leaves when its program never reached a progress point in
// a run long enough for an experiment: experiments wait for the first visit
// (docs/causal.md, "Experiments"), so none began; causal-run looks for it.
inline constexpr const char* kNoProgressMessage =
    "no progress point was reached, so no experiment began";

// The info message a process leaves for each --progress FILE:LINE point, "PREFIX NAME: N"
// (N visits counted in the whole run): causal-run weighs them against what counting
// one costs here (progress_points.h, counting_cost_warning).
inline constexpr const char* kCountedVisitsMessage = "visits counted at ";

// How the warning a process leaves when its threads waited for a CPU during the
// experiments begins (cpu_wait.h); the report names the predictions it affects.
inline constexpr const char* kCpuWaitWarningStart = "the program's threads waited for a CPU";

struct CausalSettings {
  std::string locations_file;
  std::string executable;
  std::string resolver;
  std::vector<std::string> selection_args;
  std::string locations_cache;
  bool automatic = false;
  bool seed_given = false;  // CPROF_CAUSAL_SEED was set (causal-run always sets it)
  ExperimentConfig experiments;
  std::optional<double> end_to_end_speedup;  // a fraction
  double cpu_wait_warn_share = 0.2;
  struct Breakpoint {
    std::string name;
    uint64_t address = 0;  // ELF address in `module`
    std::string module;    // a library's path; "" for the executable
    std::string patch;     // a patch plan's text (causal/patch_plan.h); "": count by the kernel
  };
  std::vector<Breakpoint> breakpoints;
  VisitCounter visit_counter = VisitCounter::breakpoint;
  std::string job;  // CPROF_CAUSAL_JOB: "" outside an MPI job
  int64_t only_rank = -1;  // CPROF_CAUSAL_ONLY_RANK: -1, every rank's samples count
  bool host_per_rank = false;  // CPROF_CAUSAL_HOST_PER_RANK=1
  bool whole_samples = false;  // CPROF_CAUSAL_WHOLE_SAMPLES=1
};

// Reads the CPROF_CAUSAL_* variables; problems (bad values) are described in `problems`
// and the defaults kept.
CausalSettings causal_settings_from_environment(std::vector<std::string>& problems);

// One line of the locations file: "NAME<TAB>START-END[,START-END...][<TAB>MODULE]".
struct LocationLine {
  std::string name;
  std::vector<AddressRange> ranges;  // ELF addresses of the module
  std::string module;                // a library's path; "" for the executable
};
std::string format_location_line(const LocationLine& line);
std::optional<LocationLine> parse_location_line(const std::string& text);

}  // namespace cprof::causal
