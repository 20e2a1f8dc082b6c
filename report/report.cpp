#include "report/report.h"

#include <string>

#include "report/load/launches.h"

namespace cprof::report {
namespace {

// Each module's package and debug package, where dpkg lists it.
void name_debug_packages(std::vector<UnnamedModule>& modules,
                         const std::filesystem::path& dpkg_info) {
  if (modules.empty()) return;
  std::vector<std::string> paths;
  paths.reserve(modules.size());
  for (const auto& m : modules) paths.push_back(m.module);
  const auto owners = owning_packages(paths, dpkg_info);
  for (auto& m : modules) {
    if (const auto it = owners.find(m.module); it != owners.end()) {
      m.package = it->second;
      m.debug_package = debug_package_of(it->second);
    }
  }
}

}  // namespace

uint64_t Report::samples() const {
  uint64_t n = 0;
  for (const auto& p : processes) n += p.samples;
  return n;
}

std::string Report::clock_summary() const {
  size_t wall = 0, chose = 0;
  for (const auto& p : processes) {
    wall += p.clock == format::SampleClock::wall;
    chose += p.sampled_on_wall_clock() || p.clock == format::SampleClock::wall;
  }
  if (chose == 0) return "";
  if (wall == 0) return "CPU clock";
  if (wall == processes.size()) return "wall clock";
  return "wall clock in " + std::to_string(wall) + " of " + std::to_string(processes.size()) +
         " processes, CPU clock in the others";
}

const char* Report::clock_kind() const {
  size_t wall = 0;
  for (const auto& p : processes) wall += p.clock == format::SampleClock::wall;
  return wall == 0 ? "cpu" : wall == processes.size() ? "wall" : "mixed";
}

uint64_t Report::threads() const {
  uint64_t n = 0;
  for (const auto& p : processes) n += p.threads.size();
  return n;
}

double Report::share(const Measure& m) const {
  if (cpu.unsampled_ns == 0 || flat.all.time_ns == 0) return flat.fraction(m);
  return share_ns(m.time_ns);
}

double Report::share_ns(uint64_t ns) const {
  const uint64_t all = accounted_ns();
  return all == 0 ? 0.0 : static_cast<double>(ns) / static_cast<double>(all);
}

Report build_report(LoadResult loaded, SymbolSource& source, const BuildOptions& options) {
  Report r;
  r.processes = std::move(loaded.processes);
  r.warnings = std::move(loaded.warnings);
  r.files_found = loaded.files_found;
  r.files_failed = loaded.files_failed;
  r.filter = std::move(loaded.filter);
  if (std::string w = separate_launches_warning(r.processes); !w.empty()) {
    r.warnings.push_back(std::move(w));
  }
  for (const auto& p : r.processes) r.coverage.push_back(check_sampling_coverage(p));
  r.cpu = account_cpu_time(r.processes);
  r.symbols = symbolize_profiles(r.processes, source);
  for (auto& w : r.symbols.warnings) r.warnings.push_back(w);
  for (size_t i = 0; i < r.processes.size(); ++i) {
    r.unnamed_code.push_back(find_unnamed_code(r.processes[i], r.symbols, i));
  }
  r.flat = build_flat_profile(r.processes, r.symbols, {.group_spread = options.group_spread});
  r.modules = build_module_view(r.flat, r.symbols.table);
  r.unnamed_modules = find_unnamed_modules(r.modules);
  name_debug_packages(r.unnamed_modules, options.dpkg_info);
  r.waits = build_wait_view(r.processes, r.symbols);
  if (options.breakdown) r.breakdown = build_breakdown(r.processes, r.symbols);
  r.counters = build_counter_profile(r.processes, r.symbols);
  r.causal = build_causal_model(r.processes, &r.symbols);
  r.gpu = build_gpu_profile(r.processes, r.symbols);
  if (options.call_tree) r.tree = build_call_tree(r.processes, r.symbols);
  return r;
}

}  // namespace cprof::report
