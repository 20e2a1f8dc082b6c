#pragma once
// A program exec'd by the profiled one is another executable: the locations causal-run
// resolved do not apply to it. The runtime in the new image asks causal-run to resolve
// the same selection (--line, --function, automatic, scopes) for it, in processes the
// program cannot see: an intermediate copy of the process cloned without an exit signal
// (the program's wait()/waitpid(-1) and SIGCHLD handler never meet it; only __WCLONE and
// __WALL waits do), which vforks and waits for causal-run itself. The intermediate must
// not exec: an exec resets a process's exit signal to SIGCHLD.
//
// Normal context only (the controller thread): it allocates, forks and waits.

#include <string>
#include <vector>

namespace cprof::causal {

// Runs `resolver --resolve-only OUT_PATH ARGS... -- EXECUTABLE` with LD_PRELOAD and the
// CPROF_ variables removed from its environment, and waits for it. Returns "" when it
// wrote OUT_PATH, else one line saying why not (its own error line when it printed one).
std::string resolve_locations_for(const std::string& resolver, const std::vector<std::string>& args,
                                  const std::string& executable, const std::string& out_path);

}  // namespace cprof::causal
