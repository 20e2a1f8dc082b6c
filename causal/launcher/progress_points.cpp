#include "causal/launcher/progress_points.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "causal/launcher/breakpoint_probe.h"
#include "causal/line_progress_name.h"

namespace cprof::causal {
namespace {

constexpr const char* kLauncher = "causal-run";

}  // namespace

bool progress_patching_allowed() {
  const char* forced = std::getenv(env::kVisitCounter);
  return forced == nullptr || forced[0] == '\0' || std::string_view(forced) == "patch";
}

std::string patched_progress_note(const std::string& spec, size_t places, size_t patched,
                                  const std::string& why_not) {
  if (patched == places) {
    return fmt::format(
        "--progress {}: counting its visits in the program's code (a counter patched in at the "
        "line's first instructions: no trap into the kernel per visit)",
        spec);
  }
  return fmt::format(
      "--progress {}: {} of its {} places counted in the program's code; the "
      "kernel counts the others (the first, {}: its code cannot be moved)",
      spec, patched, places, why_not);
}

std::optional<VisitCounter> choose_progress_counter(bool quiet, bool all_patched,
                                                    double& ns_per_visit) {
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
  if (all_patched) {
    // Only a stand-in where the runtime cannot patch: its cost is not the run's.
    ns_per_visit = 0;
    return choice.kind;
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
  ns_per_visit = choice.kind ? choice.ns_per_visit : 0;
  return choice.kind;
}

std::string no_visit_warning(const std::string& point) {
  return fmt::format(
      "--progress {} counted no visit: the run never executed the line's first instruction "
      "(code the run did not reach, or a line whose code begins on a path it did not take, "
      "such as a loop's exit or an early return); put the point on a line that runs once per "
      "unit of work",
      line_progress_spec(point));
}

std::string counting_cost_warning(const std::string& point, uint64_t visits, double ns_per_visit,
                                  uint64_t cpu_ns) {
  if (visits == 0 || ns_per_visit <= 0 || cpu_ns == 0) return "";
  const double share = static_cast<double>(visits) * ns_per_visit / static_cast<double>(cpu_ns);
  if (share < 0.05) return "";
  return fmt::format(
      "--progress {}: {} visits, at about {:.1f} us each to count here: about {:.0f}% of the "
      "run's CPU time went to counting them, time the program does not spend without it, "
      "and the experiments measured a program slowed by its own count; put the point on a "
      "line visited at most a few thousand times a second",
      line_progress_spec(point), visits, ns_per_visit / 1000, std::min(share, 1.0) * 100);
}

void leave_out_counted_line(std::vector<LocationLine>& locations, uint64_t address,
                            const std::string& module, bool quiet) {
  for (auto it = locations.begin(); it != locations.end(); ++it) {
    if (it->module != module) continue;
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
