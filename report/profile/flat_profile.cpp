#include "report/profile/flat_profile.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

namespace cprof::report {
namespace {

// One distinct stack reduced to what the flat profile needs.
struct ExpandedStacks {
  std::vector<uint32_t> self_function, self_line;
  std::vector<uint32_t> offsets{0};  // distinct functions then distinct lines, per stack
  std::vector<uint32_t> function_count;
  std::vector<uint32_t> ids;
};

ExpandedStacks expand_stacks(const ProcessProfile& p, const std::vector<uint32_t>& locations,
                             const SymbolTable& table) {
  ExpandedStacks out;
  const auto& st = p.stacks;
  out.self_function.resize(st.size());
  out.self_line.resize(st.size());
  out.function_count.resize(st.size());
  // seen[id] == stack + 1 marks an id already taken for this stack: O(depth) dedup.
  std::vector<uint32_t> function_seen(table.functions.size(), 0);
  std::vector<uint32_t> line_seen(table.lines.size(), 0);
  for (uint32_t s = 0; s < st.size(); ++s) {
    const uint64_t base = st.offset(s);
    const size_t depth = st.frames(s).size();
    const auto innermost = table.frames_of(locations[base]);
    out.self_function[s] = innermost.front().function;
    out.self_line[s] = innermost.front().line;
    uint32_t functions = 0;
    for (size_t i = 0; i < depth; ++i) {
      for (const auto& f : table.frames_of(locations[base + i])) {
        if (function_seen[f.function] == s + 1) continue;
        function_seen[f.function] = s + 1;
        out.ids.push_back(f.function);
        ++functions;
      }
    }
    for (size_t i = 0; i < depth; ++i) {
      for (const auto& f : table.frames_of(locations[base + i])) {
        if (line_seen[f.line] == s + 1) continue;
        line_seen[f.line] = s + 1;
        out.ids.push_back(f.line);
      }
    }
    out.function_count[s] = functions;
    out.offsets.push_back(static_cast<uint32_t>(out.ids.size()));
  }
  return out;
}

// Rows of one kind (functions or lines) as one worker accumulates them. The hot loop
// touches one 40-byte cell per (row, sample group); the 120-byte FlatRow is updated once
// per row and thread, when the thread ends.
struct RowAccumulator {
  struct Cell {
    uint64_t self_ns = 0, total_ns = 0;
    uint64_t self_samples = 0, total_samples = 0;
    uint32_t mark = 0;  // == pass: the row is in `touched` for this thread
  };

  explicit RowAccumulator(size_t n) : rows(n), cells(n) {}

  void add(uint32_t id, bool self, uint64_t samples, uint64_t ns) {
    auto& c = cells[id];
    if (c.mark != pass) {
      c.mark = pass;
      touched.push_back(id);
    }
    if (self) {
      c.self_samples += samples;
      c.self_ns += ns;
    } else {
      c.total_samples += samples;
      c.total_ns += ns;
    }
  }

  // One thread is done: its per-row sums go into the rows and their thread statistics.
  void end_thread() {
    for (uint32_t id : touched) {
      auto& c = cells[id];
      auto& r = rows[id];
      r.self.samples += c.self_samples;
      r.self.time_ns += c.self_ns;
      r.total.samples += c.total_samples;
      r.total.time_ns += c.total_ns;
      r.self_per_thread.add(static_cast<double>(c.self_ns));
      r.total_per_thread.add(static_cast<double>(c.total_ns));
      c.self_ns = c.total_ns = 0;
      c.self_samples = c.total_samples = 0;
    }
    touched.clear();
    ++pass;
  }

  std::vector<FlatRow> rows;
  std::vector<Cell> cells;
  std::vector<uint32_t> touched;
  uint32_t pass = 1;
};

struct Worker {
  Worker(size_t function_rows, size_t line_rows) : functions(function_rows), lines(line_rows) {}
  RowAccumulator functions, lines;
  Measure all;
  uint64_t threads = 0;
};

std::vector<FlatRow> finish_rows(std::vector<FlatRow> rows, uint64_t threads) {
  std::erase_if(rows, [](const FlatRow& r) { return r.total.samples == 0; });
  for (auto& r : rows) {
    // Threads that never ran this row contribute zeros (Chan's merge of a constant block).
    r.self_per_thread.add_repeated(0.0, threads - r.self_per_thread.count());
    r.total_per_thread.add_repeated(0.0, threads - r.total_per_thread.count());
  }
  std::sort(rows.begin(), rows.end(), [](const FlatRow& a, const FlatRow& b) {
    return std::tie(b.self.time_ns, b.self.samples, b.total.time_ns, b.total.samples, a.id) <
           std::tie(a.self.time_ns, a.self.samples, a.total.time_ns, a.total.samples, b.id);
  });
  return rows;
}

// One group's (process's, run's) time per row, as (row id, self ns, total ns).
struct RowSum {
  uint32_t id = 0;
  uint64_t self_ns = 0, total_ns = 0;
};
struct GroupSums {
  std::vector<RowSum> functions, lines;
};

// Dense per-row sums for one group at a time; take() returns the touched rows and resets.
class GroupAccumulator {
 public:
  explicit GroupAccumulator(size_t n) : sums_(n), marked_(n, 0) {}
  void add(uint32_t id, bool self, uint64_t ns) {
    if (!marked_[id]) {
      marked_[id] = 1;
      touched_.push_back(id);
      sums_[id] = {.id = id};
    }
    (self ? sums_[id].self_ns : sums_[id].total_ns) += ns;
  }
  std::vector<RowSum> take() {
    std::vector<RowSum> out;
    out.reserve(touched_.size());
    for (const uint32_t id : touched_) {
      out.push_back(sums_[id]);
      marked_[id] = 0;
    }
    touched_.clear();
    return out;
  }

 private:
  std::vector<RowSum> sums_;
  std::vector<uint8_t> marked_;
  std::vector<uint32_t> touched_;
};

// Per-process sums of every row, then per-run sums of those, into spreads by row id.
void build_group_spread(const std::vector<ProcessProfile>& processes,
                        const std::vector<ExpandedStacks>& expanded, const SymbolTable& table,
                        FlatProfile& out) {
  std::vector<GroupSums> per_process(processes.size());
  tbb::enumerable_thread_specific<std::pair<GroupAccumulator, GroupAccumulator>> accumulators([&] {
    return std::pair{GroupAccumulator(table.functions.size()),
                     GroupAccumulator(table.lines.size())};
  });
  tbb::parallel_for(size_t{0}, processes.size(), [&](size_t p) {
    auto& [functions, lines] = accumulators.local();
    const auto& ex = expanded[p];
    for (const auto& c : processes[p].counts) {
      functions.add(ex.self_function[c.stack], true, c.weight_ns);
      lines.add(ex.self_line[c.stack], true, c.weight_ns);
      const uint32_t begin = ex.offsets[c.stack];
      const uint32_t split = begin + ex.function_count[c.stack];
      for (uint32_t j = begin; j < split; ++j) functions.add(ex.ids[j], false, c.weight_ns);
      for (uint32_t j = split; j < ex.offsets[c.stack + 1]; ++j)
        lines.add(ex.ids[j], false, c.weight_ns);
    }
    per_process[p] = {functions.take(), lines.take()};
  });

  std::vector<GroupSpread> functions(table.functions.size()), lines(table.lines.size());
  const auto add = [](std::vector<GroupSpread>& into, const std::vector<RowSum>& sums, bool run) {
    for (const auto& s : sums) {
      auto& g = into[s.id];
      (run ? g.self_per_run : g.self_per_process).add(static_cast<double>(s.self_ns));
      (run ? g.total_per_run : g.total_per_process).add(static_cast<double>(s.total_ns));
    }
  };
  std::vector<std::vector<size_t>> runs;  // process indices by run, in order of appearance
  std::vector<std::string> run_names;
  for (size_t p = 0; p < processes.size(); ++p) {
    if (processes[p].counts.empty()) continue;
    ++out.processes;
    add(functions, per_process[p].functions, false);
    add(lines, per_process[p].lines, false);
    const auto it = std::find(run_names.begin(), run_names.end(), processes[p].run);
    if (it == run_names.end()) {
      run_names.push_back(processes[p].run);
      runs.push_back({p});
    } else {
      runs[static_cast<size_t>(it - run_names.begin())].push_back(p);
    }
  }
  out.runs = runs.size();
  GroupAccumulator run_functions(table.functions.size()), run_lines(table.lines.size());
  for (const auto& members : runs) {
    for (const size_t p : members) {
      for (const auto& s : per_process[p].functions) {
        run_functions.add(s.id, true, s.self_ns);
        run_functions.add(s.id, false, s.total_ns);
      }
      for (const auto& s : per_process[p].lines) {
        run_lines.add(s.id, true, s.self_ns);
        run_lines.add(s.id, false, s.total_ns);
      }
    }
    add(functions, run_functions.take(), true);
    add(lines, run_lines.take(), true);
  }
  // Groups where a row never appears count as 0; then the spreads in row order.
  const auto finish = [&](std::vector<GroupSpread>& spreads, const std::vector<FlatRow>& rows,
                          std::vector<GroupSpread>& ordered) {
    ordered.reserve(rows.size());
    for (const auto& row : rows) {
      auto g = spreads[row.id];
      g.self_per_process.add_repeated(0.0, out.processes - g.self_per_process.count());
      g.total_per_process.add_repeated(0.0, out.processes - g.total_per_process.count());
      g.self_per_run.add_repeated(0.0, out.runs - g.self_per_run.count());
      g.total_per_run.add_repeated(0.0, out.runs - g.total_per_run.count());
      ordered.push_back(g);
    }
  };
  finish(functions, out.functions, out.function_spread);
  finish(lines, out.lines, out.line_spread);
}

}  // namespace

double FlatProfile::fraction(const Measure& m) const {
  if (all.time_ns > 0) return static_cast<double>(m.time_ns) / static_cast<double>(all.time_ns);
  if (all.samples > 0) return static_cast<double>(m.samples) / static_cast<double>(all.samples);
  return 0.0;
}

FlatProfile build_flat_profile(const std::vector<ProcessProfile>& processes,
                               const SymbolizedProfiles& symbols, const FlatOptions& options) {
  const auto& table = symbols.table;
  std::vector<ExpandedStacks> expanded(processes.size());
  // Per process: the order of its counts grouped by thread.
  std::vector<std::vector<uint32_t>> by_thread(processes.size());
  std::vector<std::vector<uint32_t>> thread_starts(processes.size());
  tbb::parallel_for(size_t{0}, processes.size(), [&](size_t p) {
    expanded[p] = expand_stacks(processes[p], symbols.frame_locations[p], table);
    const auto& counts = processes[p].counts;
    auto& order = by_thread[p];
    order.resize(counts.size());
    for (uint32_t i = 0; i < counts.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return counts[a].thread < counts[b].thread; });
    for (uint32_t i = 0; i < order.size(); ++i) {
      if (i == 0 || counts[order[i]].thread != counts[order[i - 1]].thread) {
        thread_starts[p].push_back(i);
      }
    }
    thread_starts[p].push_back(static_cast<uint32_t>(order.size()));
  });

  struct Task {
    uint32_t process, begin, end;
  };
  std::vector<Task> tasks;
  for (uint32_t p = 0; p < processes.size(); ++p) {
    for (size_t t = 0; t + 1 < thread_starts[p].size(); ++t) {
      tasks.push_back({p, thread_starts[p][t], thread_starts[p][t + 1]});
    }
  }

  tbb::enumerable_thread_specific<Worker> workers(
      [&] { return Worker(table.functions.size(), table.lines.size()); });
  tbb::parallel_for(size_t{0}, tasks.size(), [&](size_t k) {
    const auto& task = tasks[k];
    const auto& counts = processes[task.process].counts;
    const auto& ex = expanded[task.process];
    auto& w = workers.local();
    for (uint32_t i = task.begin; i < task.end; ++i) {
      const auto& c = counts[by_thread[task.process][i]];
      w.all.samples += c.samples;
      w.all.time_ns += c.weight_ns;
      w.functions.add(ex.self_function[c.stack], true, c.samples, c.weight_ns);
      w.lines.add(ex.self_line[c.stack], true, c.samples, c.weight_ns);
      const uint32_t begin = ex.offsets[c.stack];
      const uint32_t split = begin + ex.function_count[c.stack];
      for (uint32_t j = begin; j < split; ++j)
        w.functions.add(ex.ids[j], false, c.samples, c.weight_ns);
      for (uint32_t j = split; j < ex.offsets[c.stack + 1]; ++j) {
        w.lines.add(ex.ids[j], false, c.samples, c.weight_ns);
      }
    }
    w.functions.end_thread();
    w.lines.end_thread();
    ++w.threads;
  });

  FlatProfile out;
  std::vector<FlatRow> functions(table.functions.size()), lines(table.lines.size());
  for (uint32_t i = 0; i < functions.size(); ++i) functions[i].id = i;
  for (uint32_t i = 0; i < lines.size(); ++i) lines[i].id = i;
  auto merge_rows = [](std::vector<FlatRow>& into, const std::vector<FlatRow>& from) {
    for (size_t i = 0; i < into.size(); ++i) {
      into[i].self.samples += from[i].self.samples;
      into[i].self.time_ns += from[i].self.time_ns;
      into[i].total.samples += from[i].total.samples;
      into[i].total.time_ns += from[i].total.time_ns;
      into[i].self_per_thread.merge(from[i].self_per_thread);
      into[i].total_per_thread.merge(from[i].total_per_thread);
    }
  };
  for (const auto& w : workers) {
    out.all.samples += w.all.samples;
    out.all.time_ns += w.all.time_ns;
    out.threads += w.threads;
    merge_rows(functions, w.functions.rows);
    merge_rows(lines, w.lines.rows);
  }
  out.functions = finish_rows(std::move(functions), out.threads);
  out.lines = finish_rows(std::move(lines), out.threads);
  if (options.group_spread) build_group_spread(processes, expanded, table, out);
  return out;
}

}  // namespace cprof::report
