#pragma once
// Event names (-e) to perf_event_attr through libpfm4. Runs at start-up only, never in a
// signal handler. Three outcomes per name: resolved, known but needing a PMU this machine
// does not have (the run goes on without it), or unknown (a usage error).

#include <linux/perf_event.h>

#include <string>
#include <vector>

namespace cprof::sampler {

struct ResolvedEvent {
  enum class Kind { resolved, absent_pmu, unknown };
  std::string name;            // as the user wrote it
  std::string canonical_name;  // libpfm4's fully qualified name, or the PMU it needs
  Kind kind = Kind::unknown;
  perf_event_attr attr{};      // valid when kind == resolved
  std::string detail;          // why not resolved
};

// Resolves each name; safe to call more than once (libpfm4 is initialized once).
std::vector<ResolvedEvent> resolve_events(const std::vector<std::string>& names);

// Splits "a,b,c" (the -e syntax) into names; empty items are dropped.
std::vector<std::string> split_event_list(const std::string& list);

}  // namespace cprof::sampler
