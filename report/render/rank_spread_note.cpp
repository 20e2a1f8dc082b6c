#include "report/render/rank_spread_note.h"

#include <fmt/format.h>

#include "report/render/text_util.h"

namespace cprof::report {
namespace {

// "mean 700 ms, min 650 ms (rank 1), max 1.02 s (rank 2), stddev 160 ms"
std::string spread(const Report& r, const RunningStats& s, uint64_t (*value)(const BreakdownRow&)) {
  int64_t low = -1, high = -1;
  for (const auto& row : r.breakdown.ranks) {
    if (row.rank < 0 || row.mpi_threads.samples == 0) continue;
    if (low < 0 && static_cast<double>(value(row)) == s.min()) low = row.rank;
    if (high < 0 && static_cast<double>(value(row)) == s.max()) high = row.rank;
  }
  return fmt::format("mean {}; min {} (rank {}); max {} (rank {}); stddev {}",
                     human_duration(static_cast<uint64_t>(s.mean())),
                     human_duration(static_cast<uint64_t>(s.min())), low,
                     human_duration(static_cast<uint64_t>(s.max())), high,
                     human_duration(static_cast<uint64_t>(s.stddev())));
}

}  // namespace

std::string rank_row_name(int64_t rank) {
  if (rank >= 0) return std::to_string(rank);
  return rank == kLauncherRank ? "launcher" : "none";
}

std::string mpi_summary_line(const Report& r) {
  const RankSpread& s = r.breakdown.rank_spread;
  if (s.ranks < 2) return "";
  Measure threads, wait;
  for (const auto& row : r.breakdown.ranks) {
    if (row.rank < 0) continue;
    threads.time_ns += row.mpi_threads.time_ns;
    wait.time_ns += row.mpi_wait.time_ns;
  }
  std::string calls;
  for (size_t i = 0; i < s.wait_calls.size() && i < 3; ++i)
    calls += (i > 0 ? ", " : "") + r.symbols.table.functions[s.wait_calls[i].first].name;
  return fmt::format(
      "MPI: {} ranks; {:.0f}% of their MPI threads' time waits in MPI{}; {} (--by rank: the "
      "spread)",
      s.ranks,
      threads.time_ns
          ? 100.0 * static_cast<double>(wait.time_ns) / static_cast<double>(threads.time_ns)
          : 0.0,
      calls.empty() ? "" : " (" + calls + ")",
      s.straggler >= 0 ? fmt::format("straggler: rank {}", s.straggler) : "no straggler");
}

std::vector<std::string> rank_spread_lines(const Report& r) {
  const RankSpread& s = r.breakdown.rank_spread;
  std::vector<std::string> out;
  if (s.ranks < 2) return out;
  out.push_back(fmt::format("across {} ranks, work (outside MPI waits): {}", s.ranks,
                            spread(r, s.outside_wait_ns, [](const BreakdownRow& row) {
                              return row.outside_mpi_wait_ns();
                            })));
  out.push_back(fmt::format("  MPI waits: {}", spread(r, s.wait_ns, [](const BreakdownRow& row) {
                              return row.mpi_wait.time_ns;
                            })));
  if (s.straggler >= 0) {
    out.push_back(
        fmt::format("straggler: rank {} works {:.0f}% more than the others' mean; they wait for it "
                    "inside MPI, {} each on average",
                    s.straggler, 100 * s.straggler_excess,
                    human_duration(static_cast<uint64_t>(s.peers_mean_wait_ns))));
  } else {
    out.push_back(fmt::format(
        "no straggler: no rank works {:.0f}% more than the others' mean by more than its "
        "samples' noise",
        100 * kStragglerExcess));
  }
  uint64_t total = 0;
  for (const auto& [f, m] : s.wait_calls) total += m.time_ns;
  if (total > 0) {
    std::string calls = "waiting in MPI: ";
    for (size_t i = 0; i < s.wait_calls.size() && i < 5; ++i) {
      const auto& [f, m] = s.wait_calls[i];
      calls += fmt::format("{}{} {} ({:.0f}%)", i > 0 ? ", " : "",
                           r.symbols.table.functions[f].name, human_duration(m.time_ns),
                           100.0 * static_cast<double>(m.time_ns) / static_cast<double>(total));
    }
    if (s.wait_calls.size() > 5) calls += fmt::format(", and {} more", s.wait_calls.size() - 5);
    out.push_back(calls);
  }
  return out;
}

}  // namespace cprof::report
