#pragma once
// MPI ranks waiting for each other, as the MPI wrappers report them through the C entry
// point of peer_wait_api.h: the runtime's side (DelayAccounting::peer_wait_begin / _end,
// before_wake_other on the calling thread) and the end-of-run count.

#include <string>

namespace cprof::causal {

// The end-of-run info message ("MPI waits seen: N ..."), or "" when none was seen.
std::string peer_wait_summary();

}  // namespace cprof::causal
