#include "causal/launcher/progress_points.h"

#include <fmt/format.h>

#include <cstdlib>

#include "causal/launcher/breakpoint_probe.h"

namespace cprof::causal {
namespace {

constexpr const char* kLauncher = "causal-run";

}  // namespace

std::string breakpoint_point_name(const std::string& spec) { return spec + " (breakpoint)"; }

std::optional<VisitCounter> choose_progress_counter(bool quiet) {
  VisitCounterChoice choice;
  const char* forced = std::getenv(env::kVisitCounter);
  if (const auto kind = visit_counter_named(forced != nullptr ? forced : ""); kind.has_value()) {
    const VisitCounterProbe probe = probe_visit_counter(*kind);
    if (probe.why_not.empty()) choice.kind = kind;
    (*kind == VisitCounter::uprobe ? choice.why_not_uprobe : choice.why_not_breakpoint) =
        probe.why_not;
    choice.ns_per_visit = probe.ns_per_visit;
  } else {
    choice = choose_visit_counter();
  }
  if (!choice.kind) {
    std::string why = choice.why_not_breakpoint;
    if (!choice.why_not_uprobe.empty()) why += (why.empty() ? "" : "; ") + choice.why_not_uprobe;
    fmt::print(stderr,
               "{}: warning: --progress: {}: its points will count no visit; count progress "
               "with CAUSAL_PROGRESS (include/causal/progress.h) or use --end-to-end\n",
               kLauncher, why);
  } else if (*choice.kind == VisitCounter::uprobe && !quiet) {
    // A uprobe traps into the kernel at each visit: say what that costs, since a point
    // visited often slows the program down by that much per visit.
    fmt::print(
        stderr,
        "{}: --progress: {}counting its visits with uprobes (about {:.1f} us per visit here)\n",
        kLauncher, choice.why_not_breakpoint.empty() ? "" : choice.why_not_breakpoint + "; ",
        choice.ns_per_visit / 1000);
  }
  return choice.kind;
}

void leave_out_counted_line(std::vector<LocationLine>& locations, uint64_t address, bool quiet) {
  for (auto it = locations.begin(); it != locations.end(); ++it) {
    if (!it->module.empty()) continue;
    for (const auto& r : it->ranges) {
      if (address < r.start || address >= r.end) continue;
      if (!quiet) {
        fmt::print(stderr,
                   "{}: automatic selection leaves out {}: the --progress point counts its "
                   "visits there, at a cost that is not the program's\n",
                   kLauncher, it->name);
      }
      locations.erase(it);
      return;
    }
  }
}

}  // namespace cprof::causal
