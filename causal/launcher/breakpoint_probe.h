#pragma once
// Which kernel mechanism counts --progress FILE:LINE visits on this machine
// (causal/visit_counter.h). Some VMs accept a hardware breakpoint and never count a hit
// (the hypervisor does not pass the debug registers through); uprobes need CAP_PERFMON.
// Each is tried on a function of causal-run itself, called a few times.

#include <optional>
#include <string>

#include "causal/visit_counter.h"

namespace cprof::causal {

struct VisitCounterProbe {
  std::string why_not;      // "" when a counter of the kind counted every call
  double ns_per_visit = 0;  // what one counted call cost, when it counted
};

// A counter of this kind on a function of this process, called kCalls times.
VisitCounterProbe probe_visit_counter(VisitCounter kind);

struct VisitCounterChoice {
  std::optional<VisitCounter> kind;  // nullopt: neither counts here
  std::string why_not_breakpoint;    // "" when hardware breakpoints count
  std::string why_not_uprobe;        // "" when uprobes count or were not tried
  double ns_per_visit = 0;           // the chosen kind's cost per visit, as probed
};

// Hardware breakpoints where they count (no change to the program's pages), else uprobes.
VisitCounterChoice choose_visit_counter();

}  // namespace cprof::causal
