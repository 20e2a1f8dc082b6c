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

// How `causal-run --resolve-only` marks a line of its stderr as a note of the resolution
// ("--line x.c:12 stands for the function f", "... has no debug information; left out"),
// not its error.
inline constexpr const char* kResolveNotePrefix = "note: ";

// Runs `resolver --resolve-only OUT_PATH ARGS... -- EXECUTABLE` with LD_PRELOAD and the
// CPROF_ variables removed from its environment, and waits for it. Returns "" when it
// wrote OUT_PATH, else one line saying why not (its own error line when it printed one).
// `notes` gets the notes it printed, either way.
std::string resolve_locations_for(const std::string& resolver, const std::vector<std::string>& args,
                                  const std::string& executable, const std::string& out_path,
                                  std::vector<std::string>& notes);

}  // namespace cprof::causal
