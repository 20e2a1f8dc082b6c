#include "report/causal/phase_correction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "causal/location.h"
#include "report/load/process_profile.h"
#include "report/symbols/symbol_table.h"

namespace cprof::report {
namespace {

// The runtime's rule for --line FILE (symbolize/module_reverse.cpp): the file given is a
// suffix of the path on whole components, so "w.cpp" matches "/src/w.cpp" but not
// "/src/new.cpp".
bool path_suffix_match(std::string_view path, std::string_view suffix) {
  if (suffix.empty() || path.size() < suffix.size()) return false;
  if (path.substr(path.size() - suffix.size()) != suffix) return false;
  return path.size() == suffix.size() || suffix.front() == '/' ||
         path[path.size() - suffix.size() - 1] == '/';
}

// A function's name without a compiler clone's suffix (" (.cold)", " [clone .constprop.0]"):
// the runtime speeds up a function's clones with it, so their samples are its samples.
std::string_view without_clone_suffix(std::string_view name) {
  for (const std::string_view clone : {" (.", " [clone ."}) {
    if (const size_t pos = name.rfind(clone); pos != std::string_view::npos) {
      name = name.substr(0, pos);
    }
  }
  return name;
}

// Which symbol-table lines and functions stand for each location: an inverse index from
// LineId / FunctionId to the locations (indices into `locations`) they belong to.
struct Targets {
  std::unordered_map<uint32_t, std::vector<uint32_t>> by_line, by_function;
};

Targets match_locations(const std::vector<std::string>& locations, const SymbolTable& table) {
  std::unordered_map<uint32_t, std::vector<LineId>> lines_by_number;
  for (LineId id = 0; id < table.lines.size(); ++id) {
    if (!table.lines[id].file.empty()) lines_by_number[table.lines[id].line].push_back(id);
  }
  std::unordered_map<std::string_view, std::vector<FunctionId>> functions_by_name;
  for (FunctionId id = 0; id < table.functions.size(); ++id) {
    functions_by_name[without_clone_suffix(table.functions[id].name)].push_back(id);
  }
  Targets t;
  for (uint32_t k = 0; k < locations.size(); ++k) {
    if (const auto line = causal::parse_line_span(locations[k]);
        line && line->first <= line->last) {
      bool matched = false;  // a line of the span holds sampled code
      for (uint64_t number = line->first;
           number <= line->last && number < uint64_t{line->first} + causal::kMaxBlockLines;
           ++number) {
        const auto it = lines_by_number.find(static_cast<uint32_t>(number));
        if (it == lines_by_number.end()) continue;
        for (const LineId id : it->second) {
          if (path_suffix_match(table.lines[id].file, line->file)) {
            t.by_line[id].push_back(k);
            matched = true;
          }
        }
      }
      // A line where a function is defined and no code is: causal-run takes the function
      // (causal/launcher/resolve.cpp, add_function_defined_at).
      for (FunctionId id = 0; !matched && line->first == line->last && id < table.functions.size();
           ++id) {
        const FunctionInfo& f = table.functions[id];
        if (f.line == line->first && path_suffix_match(f.file, line->file)) {
          t.by_function[id].push_back(k);
        }
      }
    } else if (const auto it = functions_by_name.find(without_clone_suffix(locations[k]));
               it != functions_by_name.end()) {
      for (const FunctionId id : it->second) t.by_function[id].push_back(k);
    }
  }
  return t;
}

// Samples of one process whose stack holds each location (inline frames included), once
// per sample however often the stack repeats the location.
std::vector<uint64_t> samples_holding(const ProcessProfile& p,
                                      const std::vector<uint32_t>& frame_locations,
                                      const SymbolTable& table, const Targets& targets,
                                      size_t locations) {
  std::vector<uint64_t> out(locations, 0);
  std::vector<uint64_t> per_stack(p.stacks.size(), 0);
  for (const auto& c : p.counts) per_stack[c.stack] += c.samples;
  std::vector<uint32_t> seen(locations, 0);  // == stack + 1: counted for this stack
  const auto count = [&](const std::vector<uint32_t>& ks, uint32_t stack) {
    for (const uint32_t k : ks) {
      if (seen[k] == stack + 1) continue;
      seen[k] = stack + 1;
      out[k] += per_stack[stack];
    }
  };
  for (uint32_t s = 0; s < p.stacks.size(); ++s) {
    if (per_stack[s] == 0) continue;
    const uint64_t base = p.stacks.offset(s);
    for (size_t i = 0; i < p.stacks.frames(s).size(); ++i) {
      for (const auto& f : table.frames_of(frame_locations[base + i])) {
        if (const auto it = targets.by_line.find(f.line); it != targets.by_line.end()) {
          count(it->second, s);
        }
        if (const auto it = targets.by_function.find(f.function); it != targets.by_function.end()) {
          count(it->second, s);
        }
      }
    }
  }
  return out;
}

// Wall time from the runtime's start to the end of the last thing recorded. An
// experiment record is stamped when the experiment began, so its end is added here:
// the last experiment often outlasts the last sample.
uint64_t run_time_ns(const ProcessProfile& p) {
  const uint64_t start = p.has_process_record && p.process.start_monotonic_ns
                             ? p.process.start_monotonic_ns
                             : p.first_time_ns;
  uint64_t end = p.last_time_ns;
  for (const auto& e : p.experiments) end = std::max(end, e.time_ns + e.duration_ns);
  if (start == ~uint64_t{0} || end <= start) return 0;
  return end - start;
}

// One location's sums over the processes that experimented on it.
struct Accumulated {
  double weighted = 0;  // sum of t_obs * f (f = 1 where a process lacks an input)
  double weight = 0;    // sum of t_obs
  size_t processes = 0, estimated = 0;
  std::string first_reason;
};

}  // namespace

double phase_fraction(double samples, double experiment_ns, double run_ns,
                      double selected_samples) {
  if (samples <= 0 || experiment_ns <= 0 || run_ns <= 0 || selected_samples <= 0) return -1.0;
  return std::clamp(samples * experiment_ns / (run_ns * selected_samples), 0.0, 1.0);
}

std::map<std::string, PhaseCorrection> estimate_phase_corrections(
    const std::vector<ProcessProfile>& processes, const SymbolizedProfiles* symbols) {
  // Every location with progress-point experiments, in one index for all processes.
  std::vector<std::string> locations;
  std::map<std::string, uint32_t> index;
  for (const auto& p : processes) {
    for (const auto& e : p.experiments) {
      if (e.mode == format::ExperimentMode::end_to_end) continue;
      if (index.try_emplace(e.location, static_cast<uint32_t>(locations.size())).second) {
        locations.push_back(e.location);
      }
    }
  }
  std::map<std::string, PhaseCorrection> out;
  if (locations.empty()) return out;
  const Targets targets = symbols ? match_locations(locations, symbols->table) : Targets{};

  std::vector<Accumulated> acc(locations.size());
  for (size_t pi = 0; pi < processes.size(); ++pi) {
    const auto& p = processes[pi];
    std::vector<double> t_obs(locations.size(), 0), s_obs(locations.size(), 0);
    std::vector<bool> here(locations.size(), false);
    bool any = false;
    for (const auto& e : p.experiments) {
      if (e.mode == format::ExperimentMode::end_to_end) continue;
      const uint32_t k = index.at(e.location);
      t_obs[k] += static_cast<double>(e.duration_ns);
      s_obs[k] += static_cast<double>(e.selected_samples);
      here[k] = any = true;
    }
    if (!any) continue;  // sampled only: this process has nothing to correct
    const bool has_samples = symbols != nullptr && !p.counts.empty();
    const std::vector<uint64_t> s = has_samples
                                        ? samples_holding(p, symbols->frame_locations[pi],
                                                          symbols->table, targets, locations.size())
                                        : std::vector<uint64_t>(locations.size(), 0);
    const double run_ns = static_cast<double>(run_time_ns(p));
    for (size_t k = 0; k < locations.size(); ++k) {
      if (!here[k]) continue;
      auto& a = acc[k];
      ++a.processes;
      a.weight += t_obs[k];
      const double f = phase_fraction(static_cast<double>(s[k]), t_obs[k], run_ns, s_obs[k]);
      if (f >= 0) {
        ++a.estimated;
        a.weighted += t_obs[k] * f;
        continue;
      }
      a.weighted += t_obs[k];  // no correction for this process's share
      if (!a.first_reason.empty()) continue;
      a.first_reason = symbols == nullptr ? "the samples were not symbolized"
                       : p.counts.empty() ? "the run recorded no samples with a stack"
                       : s_obs[k] <= 0    ? "the experiments counted no samples in the location"
                       : t_obs[k] <= 0    ? "the experiments recorded no duration"
                       : run_ns <= 0      ? "the process's run time is unknown"
                                          : "no sample's stack holds the location";
    }
  }

  for (size_t k = 0; k < locations.size(); ++k) {
    const auto& a = acc[k];
    PhaseCorrection c;
    if (a.estimated == 0 || a.weight <= 0) {
      c.note = "no phase correction: " + a.first_reason;
    } else {
      c.fraction = std::clamp(a.weighted / a.weight, 0.0, 1.0);
      c.estimated = true;
      c.note = fmt::format("the location runs during about {:.0f}% of the run", c.fraction * 100);
      if (a.estimated < a.processes) {
        c.note += fmt::format(" ({} of {} processes counted as 100%: {})",
                              a.processes - a.estimated, a.processes, a.first_reason);
      }
    }
    out.emplace(locations[k], std::move(c));
  }
  return out;
}

}  // namespace cprof::report
