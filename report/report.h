#pragma once
// Everything a renderer needs, built once: the loaded processes, their symbols, the
// aggregated profile and the warnings met on the way. Renderers only read it.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "report/causal/causal_model.h"
#include "report/load/loader.h"
#include "report/profile/breakdown.h"
#include "report/profile/call_tree.h"
#include "report/profile/counters.h"
#include "report/profile/cpu_accounting.h"
#include "report/profile/flat_profile.h"
#include "report/profile/gpu_profile.h"
#include "report/profile/module_view.h"
#include "report/profile/sampling_coverage.h"
#include "report/profile/unnamed_code.h"
#include "report/profile/wait_view.h"
#include "report/symbols/debug_package.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct Report {
  std::vector<ProcessProfile> processes;
  SymbolizedProfiles symbols;
  FlatProfile flat;
  Breakdown breakdown;       // per thread, process and rank; process metrics (if built)
  CounterProfile counters;   // -e event values per function (empty without counters)
  std::optional<CallTree> tree;  // only when BuildOptions::call_tree
  GpuProfile gpu;                // kernels, launch sites, devices, copies (empty without GPU records)
  CausalModel causal;            // experiments' predictions, progress points, timed regions
  std::vector<SamplingCoverage> coverage;  // parallel to processes: threads that ran unsampled
  std::vector<UnnamedCode> unnamed_code;   // parallel to processes: samples in code of no file
  std::vector<ModuleRow> modules;          // self time by module (--by module, json, html)
  std::vector<UnnamedModule> unnamed_modules;  // modules whose samples mostly have no names
  WaitView waits;  // time off CPU by call, for processes sampled on both clocks (--by wait)
  CpuAccount cpu;  // recorded CPU time against the samples', and what no sample covers
  std::vector<std::string> warnings;  // load and symbolization warnings, in order
  size_t files_found = 0;
  size_t files_failed = 0;
  std::string filter;  // LoadResult::filter: the profile is of these processes and threads only

  uint64_t samples() const;  // every sample of the profiles' clocks, attributed or not
  // Which clock the profile is, said where a process was sampled on the wall clock
  // (`sample-run --clock wall`; ProcessProfile::clock): "wall clock", "CPU clock", or
  // "wall clock in 2 of 3 processes, CPU clock in the others"; "" when every process was
  // sampled on the CPU clock alone (the profile is a CPU profile, nothing to choose).
  std::string clock_summary() const;
  // "wall", "cpu" or "mixed" (json summary.profile_clock).
  const char* clock_kind() const;
  uint64_t threads() const;  // every thread seen
  // All time accounted: the samples' (with a stack) and the CPU time no sample covers
  // (cpu.unsampled_ns). The views by thread, process and rank give shares of it.
  uint64_t accounted_ns() const { return flat.all.time_ns + cpu.unsampled_ns; }
  double share(const Measure& m) const;  // flat.fraction(m) when nothing is unsampled
  double share_ns(uint64_t ns) const;
};

struct BuildOptions {
  bool call_tree = false;  // a view or format needs the call tree (--view tree, html, folded)
  bool breakdown = true;   // per thread/process/rank and metrics; the text flat table skips it
  bool group_spread = true;  // flat rows' spread over processes and runs (json, html)
  // dpkg's lists of installed files, to name the debug package of a library whose samples
  // have no names (symbols/debug_package.h).
  std::filesystem::path dpkg_info = kDpkgInfo;
};

// Symbolizes and aggregates what was loaded.
Report build_report(LoadResult loaded, SymbolSource& source, const BuildOptions& options = {});

}  // namespace cprof::report
