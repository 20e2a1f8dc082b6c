#pragma once
// Process-level metrics (RSS, CPU time, faults, context switches, threads, CPU frequency),
// read by the writer thread at a low rate. Not for signal handlers.

#include "format/records.h"

namespace cprof::sampler {

format::MetricRecord read_process_metrics(uint64_t now_ns);

}  // namespace cprof::sampler
