#pragma once
// The experiments a process ran after its last progress: a server idle until it was
// stopped, a program tearing down. Each saw no progress point at all, so as a baseline it
// says the program's throughput was zero, and as a sped-up experiment the same, whatever
// the location: they measure the idleness, not the location. The runtime starts the first
// experiment only at the first progress (docs/causal.md); this ends them at the last.

#include <cstddef>
#include <vector>

#include "format/records.h"

namespace cprof::causal {

// Drops from `experiments` (one process's, in the order it wrote them) the progress-point
// experiments after the last one that saw any progress (a visit, or a latency point's
// begin or end). Experiments of a process that never saw progress stay: they are how the
// report says the point was never reached. End-to-end runs always stay. Returns how many
// were dropped.
size_t drop_idle_tail(std::vector<format::ExperimentRecord>& experiments);

}  // namespace cprof::causal
