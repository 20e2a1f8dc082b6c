#include "report/report.h"

namespace cprof::report {

uint64_t Report::samples() const {
  uint64_t n = 0;
  for (const auto& p : processes) n += p.samples;
  return n;
}

uint64_t Report::threads() const {
  uint64_t n = 0;
  for (const auto& p : processes) n += p.threads.size();
  return n;
}

Report build_report(LoadResult loaded, SymbolSource& source, const BuildOptions& options) {
  Report r;
  r.processes = std::move(loaded.processes);
  r.warnings = std::move(loaded.warnings);
  r.files_found = loaded.files_found;
  r.files_failed = loaded.files_failed;
  for (const auto& p : r.processes) r.coverage.push_back(check_sampling_coverage(p));
  r.symbols = symbolize_profiles(r.processes, source);
  for (auto& w : r.symbols.warnings) r.warnings.push_back(w);
  r.flat = build_flat_profile(r.processes, r.symbols, {.group_spread = options.group_spread});
  if (options.breakdown) r.breakdown = build_breakdown(r.processes, r.symbols);
  r.counters = build_counter_profile(r.processes, r.symbols);
  r.causal = build_causal_model(r.processes, &r.symbols);
  r.gpu = build_gpu_profile(r.processes, r.symbols);
  if (options.call_tree) r.tree = build_call_tree(r.processes, r.symbols);
  return r;
}

}  // namespace cprof::report
