#pragma once
// The CPU-contention warning each process of a causal run leaves (cpu_wait.h) as one
// line in causal-run's summary: with -n RUNS every run said it again, five or six
// identical lines but for the share.

#include <string>
#include <vector>

namespace cprof::causal {

// Replaces two or more CPU-wait warnings with one that gives their number and the range
// of their shares; others are left as they are.
void group_cpu_wait_warnings(std::vector<std::string>& warnings);

}  // namespace cprof::causal
