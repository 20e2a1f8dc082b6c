#include "report/profile/breakdown.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace cprof::report {
namespace {

void by_time(std::vector<BreakdownRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const BreakdownRow& a, const BreakdownRow& b) {
    return std::tie(b.time.time_ns, b.time.samples) < std::tie(a.time.time_ns, a.time.samples);
  });
}

// Self time per function for one group at a time: a dense array and the ids touched,
// so a group costs its own counts, not the number of functions.
class SelfTimes {
 public:
  explicit SelfTimes(size_t functions) : ns_(functions, 0) {}
  void add(FunctionId f, uint64_t ns) {
    if (ns_[f] == 0) touched_.push_back(f);
    ns_[f] += ns == 0 ? 1 : ns;  // weightless samples still rank (by count)
  }
  // Sets row's top function and clears for the next group.
  void take_top(BreakdownRow& row) {
    for (const FunctionId f : touched_) {
      if (ns_[f] > row.top_function_ns || (ns_[f] == row.top_function_ns && f < row.top_function)) {
        row.top_function = f;
        row.top_function_ns = ns_[f];
      }
      ns_[f] = 0;
    }
    touched_.clear();
  }

 private:
  std::vector<uint64_t> ns_;
  std::vector<FunctionId> touched_;
};

}  // namespace

ProcessMetrics summarize_metrics(const ProcessProfile& p) {
  ProcessMetrics m;
  m.records = p.metrics.size();
  m.peak_rss_bytes = p.peak_rss_bytes();
  m.cpu_utilization = p.cpu_utilization();
  uint64_t khz_sum = 0, khz_n = 0;
  for (const auto& r : p.metrics) {
    // Cumulative counters: the latest record has the totals (max guards reordering).
    m.cpu_user_ns = std::max(m.cpu_user_ns, r.cpu_user_ns);
    m.cpu_system_ns = std::max(m.cpu_system_ns, r.cpu_system_ns);
    m.minor_faults = std::max(m.minor_faults, r.minor_faults);
    m.major_faults = std::max(m.major_faults, r.major_faults);
    m.voluntary_switches = std::max(m.voluntary_switches, r.voluntary_switches);
    m.involuntary_switches = std::max(m.involuntary_switches, r.involuntary_switches);
    m.peak_threads = std::max(m.peak_threads, r.threads);
    if (r.cpu_frequency_khz) {
      khz_sum += r.cpu_frequency_khz;
      ++khz_n;
    }
  }
  if (khz_n) m.mean_cpu_frequency_khz = khz_sum / khz_n;
  return m;
}

Breakdown build_breakdown(const std::vector<ProcessProfile>& processes,
                          const SymbolizedProfiles& symbols) {
  Breakdown out;
  const auto& table = symbols.table;
  SelfTimes group(table.functions.size());
  std::map<int64_t, BreakdownRow> ranks;
  std::map<int64_t, std::vector<size_t>> processes_of_rank;
  std::vector<uint32_t> order, starts;
  for (size_t p = 0; p < processes.size(); ++p) {
    const auto& process = processes[p];
    const auto& locations = symbols.frame_locations[p];
    const auto self_function = [&](const StackCount& c) {
      return table.frames_of(locations[process.stacks.offset(c.stack)]).front().function;
    };
    out.metrics.push_back(summarize_metrics(process));
    const int64_t rank = process.has_process_record ? process.process.rank : -1;
    processes_of_rank[rank].push_back(p);
    // Counts grouped by thread (a counting sort).
    const auto& counts = process.counts;
    starts.assign(process.threads.size() + 1, 0);
    for (const auto& c : counts) ++starts[c.thread + 1];
    for (size_t t = 1; t < starts.size(); ++t) starts[t] += starts[t - 1];
    order.resize(counts.size());
    {
      auto next = starts;
      for (uint32_t i = 0; i < counts.size(); ++i) order[next[counts[i].thread]++] = i;
    }
    BreakdownRow prow{.process = p, .rank = rank, .processes = 1};
    for (uint32_t t = 0; t < process.threads.size(); ++t) {
      BreakdownRow row{.process = p, .thread = t, .rank = rank, .processes = 1, .threads = 1};
      row.cpu_time_ns = process.threads[t].cpu_time_ns;
      prow.cpu_time_ns += row.cpu_time_ns;
      for (uint32_t k = starts[t]; k < starts[t + 1]; ++k) {
        const auto& c = counts[order[k]];
        row.time.samples += c.samples;
        row.time.time_ns += c.weight_ns;
        group.add(self_function(c), c.weight_ns);
      }
      group.take_top(row);
      if (row.time.samples == 0) continue;
      ++prow.threads;
      prow.time.samples += row.time.samples;
      prow.time.time_ns += row.time.time_ns;
      prow.time_per_thread.add(static_cast<double>(row.time.time_ns));
      out.threads.push_back(row);
    }
    for (const auto& c : counts) group.add(self_function(c), c.weight_ns);
    group.take_top(prow);
    out.processes.push_back(std::move(prow));
  }
  for (const auto& [rank, members] : processes_of_rank) {
    BreakdownRow r{.rank = rank};
    for (const size_t p : members) {
      const auto& prow = out.processes[p];
      ++r.processes;
      r.threads += prow.threads;
      r.time.samples += prow.time.samples;
      r.time.time_ns += prow.time.time_ns;
      r.cpu_time_ns += prow.cpu_time_ns;
      r.time_per_thread.merge(prow.time_per_thread);
      const auto& process = processes[p];
      const auto& locations = symbols.frame_locations[p];
      for (const auto& c : process.counts) {
        group.add(table.frames_of(locations[process.stacks.offset(c.stack)]).front().function,
                  c.weight_ns);
      }
    }
    group.take_top(r);
    out.ranks.push_back(r);
  }
  // Processes without a rank (-1, first in the map): one row after the ranked ones.
  if (!out.ranks.empty() && out.ranks.front().rank < 0) {
    std::rotate(out.ranks.begin(), out.ranks.begin() + 1, out.ranks.end());
  }
  by_time(out.threads);
  by_time(out.processes);
  return out;
}

}  // namespace cprof::report
