#pragma once
// What causal-run is given to run that needs more than resolving an ELF executable's
// selection before it starts.

#include <string>

#include "causal/launcher/resolve.h"

namespace cprof::causal {

// --resolve-only OUT: the runtime of an exec'd program asks for its locations
// (exec_resolve.h). Writes OUT atomically (a temporary file renamed) and prints the error
// line, if any, on stderr. Returns the exit code.
int write_resolved_locations(const std::string& program, const Selection& selection,
                             const std::string& out_path);

// PROGRAM is a system program without debug information (`no_debug_info`, the
// resolver's error line for it), most often one that runs the program of interest: a
// shell's -c, env, time, taskset, nice. As for a script, the images it execs resolve the
// selection themselves; where the selection is needed before the start (--end-to-end,
// --progress) returns the error line; otherwise "" and, in `note`, what happens.
std::string check_system_launcher(const std::string& program, const std::string& no_debug_info,
                                  bool end_to_end, bool progress, std::string& note);

// PROGRAM starts with "#!INTERPRETER": its selection cannot be resolved before it runs.
// Where that is needed (--end-to-end, --progress) returns the error line; otherwise ""
// and, in `note`, that the images it execs resolve it.
std::string check_script(const std::string& program, const std::string& interpreter,
                         bool end_to_end, bool progress, std::string& note);

}  // namespace cprof::causal
