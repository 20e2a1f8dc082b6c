#pragma once
// Event names (-e) to perf_event_attr through libpfm4. Runs at start-up only, never in a
// signal handler. Four outcomes per name: resolved; known but needing a PMU this machine
// does not have, or known but not countable here at the level it needs (the run goes on
// without it, and says why); or unknown (a usage error).
//
// Privilege level. An event counts user and kernel level (PFM_PLM0|PFM_PLM3), as perf
// does where it may: context switches and CPU migrations happen in the kernel, and so do
// the page faults of copy_to_user. Where perf_event_paranoid refuses kernel-level counting
// (EACCES/EPERM, as at perf_event_paranoid >= 2 without CAP_PERFMON) the event falls back
// to user level and `detail` says so ("user only: perf_event_paranoid=2"), except an
// event that happens only in the kernel, which would then count 0: that one is
// not_permitted, with the reason. A level written in the name (libpfm4's `:u`, `:k`,
// `:u:k`, `:k=1`, ..., or perf's `:uk`) is honoured as written: no fallback.

#include <linux/perf_event.h>

#include <string>
#include <vector>

namespace cprof::sampler {

struct ResolvedEvent {
  enum class Kind { resolved, absent_pmu, not_permitted, unknown };
  std::string name;  // as the user wrote it
  // libpfm4's "pmu::EVENT[:umask]" plus ":u" or ":k" when it counts one level only; or
  // "pmu::name" for an absent PMU.
  std::string canonical_name;
  std::string encoding;  // libpfm4's full encoding as asked: equal ones count the same
  Kind kind = Kind::unknown;
  perf_event_attr attr{};           // valid when kind == resolved
  bool user_only_fallback = false;  // kernel level refused here: counts user level only
  int open_errno = 0;  // resolved, but perf_event_open refused it in this process: errno
  std::string detail;  // why not resolved, or how it is counted when it falls back
};

// Asks the kernel whether the calling thread may count attr (opens it disabled and closes
// it): 0, or perf_event_open's errno. Tests pass their own.
using PerfOpenProbe = int (*)(const perf_event_attr& attr);
int probe_perf_open(const perf_event_attr& attr);

// Resolves each name and chooses its privilege level (above); safe to call more than once
// (libpfm4 is initialized once).
std::vector<ResolvedEvent> resolve_events(const std::vector<std::string>& names,
                                          PerfOpenProbe probe = probe_perf_open);

// "" or one line naming an event given twice: the same name, or two names that libpfm4
// resolves to the same event at the same level (page-faults and faults). Counted twice,
// it would add up twice in the report.
std::string duplicate_event_error(const std::vector<ResolvedEvent>& events);

// A software or tracepoint event that happens only in the kernel (context switches, CPU
// migrations): restricted to user level it counts 0.
bool happens_only_in_kernel(const perf_event_attr& attr);

// Splits "a,b,c" (the -e syntax) into names; empty items are dropped.
std::vector<std::string> split_event_list(const std::string& list);

}  // namespace cprof::sampler
