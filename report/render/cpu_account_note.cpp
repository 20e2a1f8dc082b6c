#include "report/render/cpu_account_note.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/render/text_util.h"

namespace cprof::report {
namespace {

constexpr size_t kNamedGroups = 3;  // unsampled groups the header line names

// Rounded down, so that samples short of the whole never read "100%".
std::string percent(double f) { return fmt::format("{:.1f}%", std::floor(1000 * f) / 10); }

}  // namespace

std::string unsampled_processes_label(const UnsampledProcesses& g) {
  return fmt::format("[unsampled: {} of {}]",
                     plural(g.members.size(), g.short_processes ? "short process" : "process",
                            g.short_processes ? "short processes" : "processes"),
                     g.executable);
}

std::string unsampled_threads_label(const ProcessProfile& p, const UnsampledThreads& g) {
  return fmt::format("[unsampled: {} of {}]", plural(g.threads, "thread"), p.label());
}

std::vector<UnsampledRow> unsampled_rows(const Report& r) {
  std::vector<UnsampledRow> rows;
  const auto& c = r.cpu;
  for (const auto& g : c.unsampled_processes) {
    if (g.cpu_time_ns > 0) rows.push_back({unsampled_processes_label(g), g.cpu_time_ns});
  }
  for (const auto& g : c.unsampled_threads) {
    if (g.cpu_time_ns > 0) {
      rows.push_back({unsampled_threads_label(r.processes[g.process], g), g.cpu_time_ns});
    }
  }
  if (const uint64_t ns = c.unsampled_other_ns(); ns > 0) {
    rows.push_back({"[unsampled: start-up and last periods of sampled processes]", ns});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const UnsampledRow& a, const UnsampledRow& b) { return a.ns > b.ns; });
  return rows;
}

std::string cpu_account_line(const Report& r) {
  const auto& c = r.cpu;
  if (!c.any()) return "";
  std::string s = fmt::format("CPU time recorded: {}; samples cover {} of it ({})",
                              human_duration(c.recorded_ns), percent(c.coverage()),
                              human_duration(c.sampled_ns));
  if (c.unsampled_ns == 0) return s;
  s += fmt::format("; unsampled {}:", human_duration(c.unsampled_ns));
  const char* sep = " ";
  for (size_t i = 0; i < c.unsampled_processes.size() && i < kNamedGroups; ++i) {
    const auto& g = c.unsampled_processes[i];
    s += fmt::format("{}{} of {} {}", sep,
                     plural(g.members.size(), g.short_processes ? "short process" : "process",
                            g.short_processes ? "short processes" : "processes"),
                     g.executable, human_duration(g.cpu_time_ns));
    sep = "; ";
  }
  if (c.unsampled_processes.size() > kNamedGroups) {
    uint64_t n = 0, ns = 0;
    for (size_t i = kNamedGroups; i < c.unsampled_processes.size(); ++i) {
      n += c.unsampled_processes[i].members.size();
      ns += c.unsampled_processes[i].cpu_time_ns;
    }
    s += fmt::format("{}{} of {} more executables {}", sep, plural(n, "process", "processes"),
                     c.unsampled_processes.size() - kNamedGroups, human_duration(ns));
  }
  if (const uint64_t ns = c.unsampled_thread_ns(); ns > 0) {
    uint64_t n = 0;
    for (const auto& g : c.unsampled_threads) n += g.threads;
    s += fmt::format("{}{} without a sample in sampled processes {}", sep, plural(n, "thread"),
                     human_duration(ns));
    sep = "; ";
  }
  if (const uint64_t ns = c.unsampled_other_ns(); ns > 0) {
    s += fmt::format("{}the rest of sampled processes (start-up, last periods) {}", sep,
                     human_duration(ns));
  }
  return s;
}

std::string unsampled_footer(const Report& r) {
  const auto& c = r.cpu;
  if (c.unsampled_ns == 0) return "";
  return fmt::format(
      "(not shown: {} of CPU time without samples, {} of the {} recorded; see --by process)",
      human_duration(c.unsampled_ns),
      percent(static_cast<double>(c.unsampled_ns) / static_cast<double>(c.recorded_ns)),
      human_duration(c.recorded_ns));
}

std::string more_rows_line(const char* dots, uint64_t n, const char* word, const char* words,
                           double fraction) {
  return fmt::format("{} {} more {} ({:.2f}% of the time)", dots, with_commas(n),
                     n == 1 ? word : words, 100 * fraction);
}

}  // namespace cprof::report
