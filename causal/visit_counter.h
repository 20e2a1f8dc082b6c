#pragma once
// Counting the executions of one instruction without a source change, for --progress
// FILE:LINE points: a perf_event counter per thread, read now and then, so no visit costs
// a signal. Two kernel mechanisms do it:
//   breakpoint  a hardware execution breakpoint (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X):
//               needs debug registers (4 on x86, so at most 4 points), which some VMs
//               accept and never fire;
//   uprobe      a uprobe perf event (the "uprobe" PMU, Linux 4.17+): the kernel puts an
//               int3 at the instruction's file offset in this process's copy of the page;
//               works in any VM, but needs CAP_PERFMON (root) like perf's own probes.
// causal-run tries both on a function of its own (launcher/breakpoint_probe.h) and tells
// the runtime which one counts.
//
// Normal context only: opens files and allocates.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cprof::causal {

enum class VisitCounter { breakpoint, uprobe };

const char* to_string(VisitCounter kind);
std::optional<VisitCounter> visit_counter_named(std::string_view name);

// An instruction of a loaded object: its run-time address, and the file and file offset
// a uprobe is set on.
struct CodePlace {
  uint64_t address = 0;
  std::string file;
  uint64_t file_offset = 0;
};

// The place of a run-time address in an object loaded into this process; nullopt when no
// loaded segment with file contents holds it.
std::optional<CodePlace> code_place(uint64_t address);

// A counter of the executions of `where` by thread `tid` (0: the calling thread), opened
// close-on-exec; -1 with errno set when it cannot be opened.
int open_visit_counter(VisitCounter kind, const CodePlace& where, pid_t tid);

}  // namespace cprof::causal
