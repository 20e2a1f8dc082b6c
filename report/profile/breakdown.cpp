#include "report/profile/breakdown.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "report/profile/mpi_calls.h"

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

// What MPI a stack is in: whether any frame is an MPI function, and the outermost MPI call
// that waits for other ranks (the program's own call, not the library's calls inside it).
class MpiFrames {
 public:
  explicit MpiFrames(const SymbolTable& table) : table_(table), kind_(table.functions.size(), 0) {}
  struct InStack {
    bool mpi = false;
    FunctionId wait = 0;
    bool waits = false;
  };
  InStack of(std::span<const uint32_t> locations) {
    InStack in;
    for (const uint32_t loc : locations) {  // innermost first: the last wait found is outermost
      for (const auto& frame : table_.frames_of(loc)) {
        const uint8_t k = kind(frame.function);
        in.mpi = in.mpi || k >= kMpi;
        if (k == kWait) {
          in.wait = frame.function;
          in.waits = true;
        }
      }
    }
    return in;
  }

 private:
  static constexpr uint8_t kOther = 1, kMpi = 2, kWait = 3;
  uint8_t kind(FunctionId f) {
    if (kind_[f] == 0) {
      const std::string& name = table_.functions[f].name;
      kind_[f] = is_mpi_wait_call(name) ? kWait : is_mpi_function(name) ? kMpi : kOther;
    }
    return kind_[f];
  }
  const SymbolTable& table_;
  std::vector<uint8_t> kind_;  // 0: not looked at yet
};

void add(Measure& to, const Measure& m) {
  to.samples += m.samples;
  to.time_ns += m.time_ns;
}

// Mean, spread and straggler of the ranks' work and waits.
RankSpread spread_of(const std::vector<BreakdownRow>& ranks,
                     const std::map<FunctionId, Measure>& wait_calls) {
  RankSpread out;
  std::vector<const BreakdownRow*> mpi;
  for (const auto& r : ranks) {
    if (r.rank < 0 || r.mpi_threads.samples == 0) continue;
    mpi.push_back(&r);
    out.outside_wait_ns.add(static_cast<double>(r.outside_mpi_wait_ns()));
    out.wait_ns.add(static_cast<double>(r.mpi_wait.time_ns));
  }
  out.ranks = mpi.size();
  for (const auto& [f, m] : wait_calls) out.wait_calls.emplace_back(f, m);
  std::stable_sort(out.wait_calls.begin(), out.wait_calls.end(), [](const auto& a, const auto& b) {
    return a.second.time_ns > b.second.time_ns;
  });
  if (mpi.size() < 2) return out;
  const auto top = std::max_element(mpi.begin(), mpi.end(), [](const auto* a, const auto* b) {
    return a->outside_mpi_wait_ns() < b->outside_mpi_wait_ns();
  });
  const double n_others = static_cast<double>(mpi.size() - 1);
  const double others = (out.outside_wait_ns.mean() * static_cast<double>(mpi.size()) -
                         static_cast<double>((*top)->outside_mpi_wait_ns())) /
                        n_others;
  const double others_wait = (out.wait_ns.mean() * static_cast<double>(mpi.size()) -
                              static_cast<double>((*top)->mpi_wait.time_ns)) /
                             n_others;
  if (others <= 0) return out;
  const double excess = static_cast<double>((*top)->outside_mpi_wait_ns()) / others - 1;
  // Sampling noise: a count of n samples is uncertain by about sqrt(n); the straggler's
  // work must exceed the others' by three times that.
  const uint64_t top_samples = (*top)->mpi_threads.samples - (*top)->mpi_wait.samples;
  const double excess_samples = static_cast<double>(top_samples) * excess / (1 + excess);
  if (excess < kStragglerExcess || excess_samples < 3 * std::sqrt(static_cast<double>(top_samples)))
    return out;
  out.straggler = (*top)->rank;
  out.straggler_excess = excess;
  out.peers_mean_wait_ns = others_wait;
  return out;
}

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
  MpiFrames mpi(table);
  std::map<FunctionId, Measure> wait_calls;
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
    int64_t rank = process.has_process_record ? process.process.rank : kNoRank;
    if (rank < 0 && is_mpi_launcher(process.process.executable)) rank = kLauncherRank;
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
      bool calls_mpi = false;
      for (uint32_t k = starts[t]; k < starts[t + 1]; ++k) {
        const auto& c = counts[order[k]];
        const Measure m{c.samples, c.weight_ns};
        add(row.time, m);
        group.add(self_function(c), c.weight_ns);
        const uint64_t at = process.stacks.offset(c.stack);
        const auto in = mpi.of(std::span<const uint32_t>(locations).subspan(
            at, process.stacks.frames(c.stack).size()));
        calls_mpi = calls_mpi || in.mpi;
        if (in.waits) {
          add(row.mpi_wait, m);
          add(wait_calls[in.wait], m);
        }
      }
      if (calls_mpi) row.mpi_threads = row.time;
      group.take_top(row);
      if (row.time.samples == 0) continue;
      ++prow.threads;
      add(prow.time, row.time);
      add(prow.mpi_threads, row.mpi_threads);
      add(prow.mpi_wait, row.mpi_wait);
      prow.time_per_thread.add(static_cast<double>(row.time.time_ns));
      out.threads.push_back(row);
    }
    for (const auto& c : counts) group.add(self_function(c), c.weight_ns);
    group.take_top(prow);
    out.processes.push_back(prow);
  }
  for (const auto& [rank, members] : processes_of_rank) {
    BreakdownRow r{.rank = rank};
    for (const size_t p : members) {
      const auto& prow = out.processes[p];
      ++r.processes;
      r.threads += prow.threads;
      add(r.time, prow.time);
      add(r.mpi_threads, prow.mpi_threads);
      add(r.mpi_wait, prow.mpi_wait);
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
  // Processes without a rank (first in the map, launcher's then the others): after the
  // ranked ones, in that order.
  std::stable_partition(out.ranks.begin(), out.ranks.end(),
                        [](const BreakdownRow& r) { return r.rank >= 0; });
  out.rank_spread = spread_of(out.ranks, wait_calls);
  by_time(out.threads);
  by_time(out.processes);
  return out;
}

}  // namespace cprof::report
