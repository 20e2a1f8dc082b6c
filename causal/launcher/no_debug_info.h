#pragma once
// Programs without debug information: the error line the resolver gives for one, and the
// launcher's folding of the runtime's warnings for several (a script's helpers, bash,
// basename, env, each exec'd with the runtime, give one each).

#include <string>
#include <vector>

namespace cprof::causal {

// "P has no debug information: rebuild it with -g (e.g. -O2 -g)"; for a system file
// (/usr/..., /lib...) it names debug-symbol packages first.
std::string no_debug_info_error(const std::string& program);

// A file the system installed (/usr/..., /lib...): its debug information comes in a
// package, and it is rebuilt by no one here.
bool is_system_file(const std::string& path);

// Folds the warnings "no experiments in P: " + no_debug_info_error(P) into one line naming
// every such P, in the place of the first, when there are two or more.
void group_no_debug_info_warnings(std::vector<std::string>& warnings);

}  // namespace cprof::causal
