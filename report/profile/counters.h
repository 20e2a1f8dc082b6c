#pragma once
// Hardware and software counter values per function: the sums of the `-e` events' deltas
// that samples carried, by event name (the same name in several processes is one column),
// where the function was the innermost frame (self) and anywhere on the stack (total),
// plus ratios derived where both sides were counted (IPC = instructions / cycles).
// Events that could not be opened are listed with the reason the runtime gave.

#include <cstdint>
#include <string>
#include <vector>

#include "report/load/process_profile.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {

struct EventSummary {
  std::string name;            // as given to -e
  std::string canonical_name;  // libpfm4's, from the first process that resolved it
  uint64_t processes_ok = 0, processes_unavailable = 0, processes_zero = 0;
  std::string detail;  // the first reason given for unavailable
  // How it was counted where that differs from what was asked (the first note of an event
  // that counted, e.g. "user only: perf_event_paranoid=2 (...)"), and in how many processes.
  std::string note;
  uint64_t processes_noted = 0;
  uint64_t total = 0;  // sum of all deltas over all samples
};

// A ratio of two events, e.g. IPC. Present only when both events counted something.
struct DerivedRatio {
  std::string name;                       // "IPC"
  size_t numerator = 0, denominator = 0;  // indices into CounterProfile::events
};

struct CounterRow {
  FunctionId function = 0;
  std::vector<uint64_t> self, total;  // parallel to CounterProfile::events
};

struct CounterProfile {
  std::vector<EventSummary> events;  // every event named in any process, by first appearance
  std::vector<DerivedRatio> ratios;
  std::vector<CounterRow> functions;  // functions with any counted value; by self of event 0
  bool any_values() const { return !functions.empty(); }
};

CounterProfile build_counter_profile(const std::vector<ProcessProfile>& processes,
                                     const SymbolizedProfiles& symbols);

// numerator / denominator of a ratio over a row's values; <0 when the denominator is 0.
double ratio_value(const DerivedRatio& r, const std::vector<uint64_t>& values);

}  // namespace cprof::report
