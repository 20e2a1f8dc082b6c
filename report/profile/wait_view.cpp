#include "report/profile/wait_view.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <span>
#include <tuple>

#include "common/system_paths.h"

namespace cprof::report {
namespace {

constexpr double kZ95 = 1.96;

// Which functions and lines belong to the system, each looked at once.
class SystemFrames {
 public:
  explicit SystemFrames(const SymbolTable& table)
      : table_(table), library_(table.functions.size(), 0), header_(table.lines.size(), 0) {}

  bool in_library(FunctionId f) {
    if (library_[f] == 0) library_[f] = is_system_library(table_.functions[f].module) ? 2 : 1;
    return library_[f] == 2;
  }
  // The program's own code: not in a library, and not a system header's code inlined
  // into the program (std::unique_lock::lock); a line without a file (no debug
  // information) is the program's when its module is.
  bool own(const SymbolFrame& frame) {
    if (in_library(frame.function)) return false;
    if (header_[frame.line] == 0) {
      const std::string& file = table_.lines[frame.line].file;
      header_[frame.line] = !file.empty() && is_system_source(file) ? 2 : 1;
    }
    return header_[frame.line] == 1;
  }

 private:
  const SymbolTable& table_;
  std::vector<uint8_t> library_;  // 0: not looked at, 1: no, 2: yes
  std::vector<uint8_t> header_;
};

using RowKey = std::tuple<FunctionId, bool, bool, FunctionId, LineId>;

RowKey key_of(const WaitRow& r) {
  return {r.call, r.own_code, r.has_caller, r.caller, r.caller_line};
}

// The (call, caller) of one stack, frames innermost first (docs in the header).
WaitRow classify(std::span<const SymbolFrame> frames, SystemFrames& system,
                 const SymbolTable& table) {
  WaitRow row;
  // The nearest own frame from `from` outwards, or frames[from] when there is none.
  const auto nearest_own = [&](size_t from) -> const SymbolFrame& {
    size_t j = from;
    while (j < frames.size() && !system.own(frames[j])) ++j;
    return frames[j == frames.size() ? from : j];
  };
  const auto caller = [&](const SymbolFrame& f) {
    row.has_caller = true;
    row.caller = f.function;
    row.caller_line = f.line;
  };
  // Keyed by the own line, as shown: a system header's function inlined there (a
  // vector's operator[]) is part of that line's own code, not a row of its own.
  const auto own_code = [&](const SymbolFrame& f) {
    row.own_code = true;
    row.call = f.function;
    caller(f);
    return row;
  };
  if (!system.in_library(frames[0].function)) return own_code(nearest_own(0));
  size_t i = 0;
  while (i < frames.size() && system.in_library(frames[i].function)) ++i;
  if (i == frames.size()) {  // a thread that never enters the program: the innermost library
    const auto module_of = [&](size_t k) -> const std::string& {
      return table.functions[frames[k].function].module;
    };
    i = 0;
    while (i < frames.size() && module_of(i) == module_of(0)) ++i;
    // Only the code that started the thread (libc's start_thread) outside it: the thread
    // is that library's own (liblzma's worker computing), as the program's would be.
    const std::string& starter = module_of(frames.size() - 1);
    const auto in_starter = [&](const SymbolFrame& f) {
      return table.functions[f.function].module == starter;
    };
    if (i < frames.size() &&
        std::all_of(frames.begin() + static_cast<std::ptrdiff_t>(i), frames.end(), in_starter)) {
      return own_code(frames[0]);
    }
  }
  row.call = frames[i - 1].function;
  if (i < frames.size()) caller(nearest_own(i));
  return row;
}

}  // namespace

std::string wait_call_name(const SymbolTable& table, const WaitRow& row) {
  if (row.own_code) return "(its own code)";
  const FunctionInfo& f = table.functions[row.call];
  std::string_view name = f.name;
  if (const auto at = name.find('@'); at != std::string_view::npos && at > 0)
    name = name.substr(0, at);
  std::string_view module = f.module;
  if (const auto slash = module.rfind('/'); slash != std::string_view::npos)
    module.remove_prefix(slash + 1);
  if (!module.starts_with("libc.so") && !module.starts_with("libpthread")) return std::string(name);
  if (name.starts_with("__GI_")) name.remove_prefix(5);
  if (name.starts_with("__libc_")) {
    name.remove_prefix(7);
  } else if (name.starts_with("__") && name.size() > 2 && name[2] != '_') {
    name.remove_prefix(2);
  } else if (name.starts_with("___")) {
    name.remove_prefix(3);
  }
  return std::string(name);
}

size_t WaitView::rows_standing_out() const {
  return static_cast<size_t>(
      std::count_if(rows.begin(), rows.end(), [](const WaitRow& r) { return r.stands_out; }));
}

WaitView build_wait_view(const std::vector<ProcessProfile>& processes,
                         const SymbolizedProfiles& symbols) {
  WaitView view;
  const auto& table = symbols.table;
  SystemFrames system(table);
  std::map<RowKey, size_t> index;
  std::vector<double> variance;  // per row, ns²
  std::vector<SymbolFrame> frames;
  for (size_t p = 0; p < processes.size(); ++p) {
    const auto& process = processes[p];
    if (process.process.clock != "cpu+wall") continue;
    const bool wall_shown = process.clock == format::SampleClock::wall;
    const auto& wall = wall_shown ? process.counts : process.other_clock_counts;
    const auto& cpu = wall_shown ? process.other_clock_counts : process.counts;
    if (wall.empty()) continue;
    ++view.processes;
    const auto& locations = symbols.frame_locations[p];
    std::vector<int64_t> row_of_stack(process.stacks.size(), -1);
    std::vector<bool> thread_seen(process.threads.size(), false);
    const auto row_of = [&](uint32_t stack) -> size_t {
      if (row_of_stack[stack] >= 0) return static_cast<size_t>(row_of_stack[stack]);
      frames.clear();
      const uint64_t at = process.stacks.offset(stack);
      for (size_t k = 0; k < process.stacks.frames(stack).size(); ++k) {
        for (const auto& f : table.frames_of(locations[at + k])) frames.push_back(f);
      }
      const WaitRow row = classify(frames, system, table);
      const auto [it, added] = index.emplace(key_of(row), view.rows.size());
      if (added) {
        view.rows.push_back(row);
        variance.push_back(0);
      }
      row_of_stack[stack] = static_cast<int64_t>(it->second);
      return it->second;
    };
    // Adds a count to its row; returns the row, or kNone for a count without frames.
    constexpr size_t kNone = SIZE_MAX;
    const auto add = [&](const StackCount& c, Measure WaitRow::*clock, Measure& total) {
      if (c.samples == 0 || process.stacks.frames(c.stack).empty()) return kNone;
      const size_t r = row_of(c.stack);
      (view.rows[r].*clock).samples += c.samples;
      (view.rows[r].*clock).time_ns += c.weight_ns;
      total.samples += c.samples;
      total.time_ns += c.weight_ns;
      const double w = static_cast<double>(c.weight_ns);
      variance[r] += w * w / static_cast<double>(c.samples);
      return r;
    };
    std::set<std::pair<size_t, uint32_t>> row_threads;  // this process's (row, thread)
    for (const auto& c : wall) {
      const size_t r = add(c, &WaitRow::wall, view.wall);
      if (c.thread < thread_seen.size() && !thread_seen[c.thread]) {
        thread_seen[c.thread] = true;
        ++view.threads;
      }
      if (r != kNone && row_threads.emplace(r, c.thread).second) ++view.rows[r].threads;
    }
    for (const auto& c : cpu) add(c, &WaitRow::cpu, view.cpu);
  }
  const double least = kWaitMinShare * static_cast<double>(view.off_cpu_ns());
  for (size_t r = 0; r < view.rows.size(); ++r) {
    auto& row = view.rows[r];
    row.half_width_ns = static_cast<uint64_t>(kZ95 * std::sqrt(variance[r]));
    row.stands_out = row.off_cpu_ns() > static_cast<int64_t>(row.half_width_ns) &&
                     static_cast<double>(row.off_cpu_ns()) >= least;
  }
  std::stable_sort(view.rows.begin(), view.rows.end(), [](const WaitRow& a, const WaitRow& b) {
    return std::make_tuple(!a.stands_out, -a.off_cpu_ns()) <
           std::make_tuple(!b.stands_out, -b.off_cpu_ns());
  });
  return view;
}

}  // namespace cprof::report
