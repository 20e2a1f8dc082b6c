#pragma once
// causal-run's --progress FILE:LINE points, before the program starts: their names, how
// their visits are counted on this machine (breakpoint_probe.h), and the line automatic
// selection must leave out for each.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "causal/runtime/settings.h"
#include "causal/visit_counter.h"

namespace cprof::causal {

// How the points' visits are counted here, with a line on stderr when it is not the
// hardware breakpoints and a warning when nothing counts. CPROF_CAUSAL_VISIT_COUNTER in
// causal-run's environment picks the kind (tests use it to reach uprobes on machines
// whose breakpoints count).
// `ns_per_visit`: what counting one visit cost in the probe (0 when nothing counts, or
// when `all_patched`: every place is counted in the program's code, and the kernel's
// counter only stands in where the runtime cannot patch; nothing is printed then).
std::optional<VisitCounter> choose_progress_counter(bool quiet, bool all_patched,
                                                    double& ns_per_visit);

// Whether --progress places may be counted in the program's code (causal/patch_plan.h):
// unless CPROF_CAUSAL_VISIT_COUNTER names a kernel counter (breakpoint or uprobe).
bool progress_patching_allowed();
// The line saying how a --progress point's `places` are counted, `patched` of them in
// the code; `why_not` names the first place left to the kernel and why.
std::string patched_progress_note(const std::string& spec, size_t places, size_t patched,
                                  const std::string& why_not);

// A --progress point that counted nothing in the whole run (`point`: its record name).
std::string no_visit_warning(const std::string& point);
// A point visited so often that counting its visits took a share of the run's CPU time
// the program does not spend without it (visits x ns_per_visit against cpu_ns, from 5%
// on): the warning line, naming the point, its visits, the cost and what to do; "" below.
// Each visit traps into the kernel (a breakpoint's debug exception or a uprobe's
// single step): 0.9 s for 200,000 visits of a 2 ms loop on this project's VMs.
std::string counting_cost_warning(const std::string& point, uint64_t visits, double ns_per_visit,
                                  uint64_t cpu_ns);

// Removes from automatic selection by line the line holding `address` (the executable's):
// each visit traps into the kernel there, time the samples put on that line and that is
// not the program's (memcached: the probed line ranked third, 11% of self time against 0).
void leave_out_counted_line(std::vector<LocationLine>& locations, uint64_t address,
                            const std::string& module, bool quiet);

}  // namespace cprof::causal
