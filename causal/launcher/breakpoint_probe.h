#pragma once
// Whether hardware breakpoints count on this machine (--progress FILE:LINE counts visits
// with them, causal/runtime/breakpoints.h). Some VMs accept the perf_event breakpoint and
// never count a hit (the hypervisor does not pass the debug registers through): every
// such point would stay at zero and no experiment would begin, with no word why.

#include <string>

namespace cprof::causal {

// "" when a breakpoint on a function of this process counts its calls; else why not, in
// one line.
std::string hardware_breakpoints_do_not_count();

}  // namespace cprof::causal
