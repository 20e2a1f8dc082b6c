#include "report/profile/counters.h"

#include <algorithm>
#include <unordered_map>

namespace cprof::report {
namespace {

// Which well-known counter an event is, by the name given or libpfm4's canonical name.
enum class Role {
  other,
  instructions,
  cycles,
  cache_references,
  cache_misses,
  branches,
  branch_misses
};

Role role_of(const EventSummary& e) {
  for (const std::string* n : {&e.name, &e.canonical_name}) {
    std::string s = *n;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s.starts_with("perf_count_hw_")) s = s.substr(14);
    std::replace(s.begin(), s.end(), '_', '-');
    if (s == "instructions" || s == "inst-retired" || s.starts_with("inst-retired:any")) {
      return Role::instructions;
    }
    if (s == "cycles" || s == "cpu-cycles" || s.starts_with("cpu-clk-unhalted"))
      return Role::cycles;
    if (s == "cache-references") return Role::cache_references;
    if (s == "cache-misses") return Role::cache_misses;
    if (s == "branches" || s == "branch-instructions") return Role::branches;
    if (s == "branch-misses") return Role::branch_misses;
  }
  return Role::other;
}

void add_ratios(CounterProfile& out) {
  struct Known {
    const char* name;
    Role numerator, denominator;
  };
  static constexpr Known kKnown[] = {
      {"IPC", Role::instructions, Role::cycles},
      {"cache miss rate", Role::cache_misses, Role::cache_references},
      {"branch miss rate", Role::branch_misses, Role::branches}};
  for (const auto& k : kKnown) {
    size_t num = out.events.size(), den = out.events.size();
    for (size_t i = 0; i < out.events.size(); ++i) {
      if (out.events[i].total == 0) continue;
      const Role r = role_of(out.events[i]);
      if (r == k.numerator && num == out.events.size()) num = i;
      if (r == k.denominator && den == out.events.size()) den = i;
    }
    if (num < out.events.size() && den < out.events.size())
      out.ratios.push_back({k.name, num, den});
  }
}

}  // namespace

double ratio_value(const DerivedRatio& r, const std::vector<uint64_t>& values) {
  if (r.denominator >= values.size() || values[r.denominator] == 0) return -1.0;
  return static_cast<double>(values[r.numerator]) / static_cast<double>(values[r.denominator]);
}

CounterProfile build_counter_profile(const std::vector<ProcessProfile>& processes,
                                     const SymbolizedProfiles& symbols) {
  CounterProfile out;
  std::unordered_map<std::string, size_t> by_name;
  std::vector<std::vector<size_t>> column_of(processes.size());  // event index -> column
  for (size_t p = 0; p < processes.size(); ++p) {
    for (const auto& e : processes[p].events) {
      auto [it, inserted] = by_name.try_emplace(e.name, out.events.size());
      if (inserted) out.events.push_back({.name = e.name});
      auto& s = out.events[it->second];
      if (s.canonical_name.empty()) s.canonical_name = e.canonical_name;
      switch (e.status) {
        case format::EventStatus::ok:
          ++s.processes_ok;
          if (!e.detail.empty()) {
            ++s.processes_noted;
            if (s.note.empty()) s.note = e.detail;
          }
          break;
        case format::EventStatus::unavailable:
          ++s.processes_unavailable;
          if (s.detail.empty()) s.detail = e.detail;
          break;
        case format::EventStatus::counted_zero:
          ++s.processes_zero;
          break;
      }
      auto& columns = column_of[p];
      if (columns.size() <= e.index) columns.resize(e.index + 1, SIZE_MAX);
      columns[e.index] = it->second;
    }
  }
  const size_t n = out.events.size();
  if (n == 0) return out;

  const auto& table = symbols.table;
  std::vector<uint32_t> row_of(table.functions.size(), UINT32_MAX);
  std::vector<uint64_t> seen(table.functions.size(), 0);
  uint64_t mark = 0;
  const auto row = [&](FunctionId f) -> CounterRow& {
    if (row_of[f] == UINT32_MAX) {
      row_of[f] = static_cast<uint32_t>(out.functions.size());
      out.functions.push_back(
          {.function = f, .self = std::vector<uint64_t>(n), .total = std::vector<uint64_t>(n)});
    }
    return out.functions[row_of[f]];
  };
  for (size_t p = 0; p < processes.size(); ++p) {
    const auto& process = processes[p];
    const auto& locations = symbols.frame_locations[p];
    const auto& columns = column_of[p];
    // The profile's samples and the other clock's, set aside (process_profile.h): counter
    // deltas ride on the samples that read them, and each sample is in one of the two.
    for (const auto* counts : {&process.counts, &process.other_clock_counts})
    for (const auto& c : *counts) {
      if (c.counters.empty()) continue;
      bool any = false;
      for (uint64_t v : c.counters) any |= v != 0;
      if (!any) continue;
      const uint64_t base = process.stacks.offset(c.stack);
      const size_t depth = process.stacks.frames(c.stack).size();
      ++mark;
      const auto add = [&](std::vector<uint64_t>& into) {
        for (size_t i = 0; i < c.counters.size() && i < columns.size(); ++i) {
          if (columns[i] != SIZE_MAX) into[columns[i]] += c.counters[i];
        }
      };
      for (size_t i = 0; i < c.counters.size() && i < columns.size(); ++i) {
        if (columns[i] != SIZE_MAX) out.events[columns[i]].total += c.counters[i];
      }
      add(row(table.frames_of(locations[base]).front().function).self);
      for (size_t i = 0; i < depth; ++i) {
        for (const auto& f : table.frames_of(locations[base + i])) {
          if (seen[f.function] == mark) continue;
          seen[f.function] = mark;
          add(row(f.function).total);
        }
      }
    }
  }
  add_ratios(out);
  std::sort(out.functions.begin(), out.functions.end(),
            [](const CounterRow& a, const CounterRow& b) {
              if (a.self != b.self) return a.self > b.self;
              return a.function < b.function;
            });
  return out;
}

}  // namespace cprof::report
