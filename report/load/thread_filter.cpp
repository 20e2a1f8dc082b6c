#include "report/load/thread_filter.h"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <optional>

namespace cprof::report {
namespace {

std::optional<int64_t> as_tid(const std::string& s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v <= 0) return std::nullopt;
  return v;
}

uint64_t samples_of(const LoadResult& loaded) {
  uint64_t n = 0;
  for (const auto& p : loaded.processes) n += p.samples;
  return n;
}

uint64_t threads_of(const LoadResult& loaded) {
  uint64_t n = 0;
  for (const auto& p : loaded.processes) n += p.threads.size();
  return n;
}

// Drops the entries of `v` whose thread is not kept and renumbers the others' threads.
template <typename T>
void keep_counts(std::vector<T>& v, const std::vector<int64_t>& new_index) {
  std::erase_if(v, [&](const T& c) { return new_index[c.thread] < 0; });
  for (auto& c : v) c.thread = static_cast<uint32_t>(new_index[c.thread]);
}

// Keeps the threads of `p` that `filter` names; false when none is left.
bool filter_threads(ProcessProfile& p, const ThreadFilter& filter) {
  std::vector<int64_t> new_index(p.threads.size(), -1);
  std::vector<ThreadInfo> kept;
  std::vector<int64_t> kept_tids;
  for (size_t i = 0; i < p.threads.size(); ++i) {
    if (!filter.keeps_thread(p.threads[i].tid, p.threads[i].name)) continue;
    new_index[i] = static_cast<int64_t>(kept.size());
    kept_tids.push_back(p.threads[i].tid);
    kept.push_back(std::move(p.threads[i]));
  }
  p.threads = std::move(kept);
  keep_counts(p.counts, new_index);
  keep_counts(p.other_clock_counts, new_index);
  keep_counts(p.timeline, new_index);
  p.samples = p.weight_ns = p.other_clock_samples = p.other_clock_weight_ns = 0;
  for (const auto& c : p.counts) {
    p.samples += c.samples;
    p.weight_ns += c.weight_ns;
  }
  for (const auto& c : p.other_clock_counts) {
    p.other_clock_samples += c.samples;
    p.other_clock_weight_ns += c.weight_ns;
  }
  // Stackless samples are counted per process, not per thread: none is left to show.
  p.empty_samples = 0;
  p.truncated_samples = std::min(p.truncated_samples, p.samples);
  const auto launched_elsewhere = [&](const auto& g) {
    return std::find(kept_tids.begin(), kept_tids.end(), g.tid) == kept_tids.end();
  };
  std::erase_if(p.gpu.kernels, launched_elsewhere);
  std::erase_if(p.gpu.copies, launched_elsewhere);
  return !p.threads.empty();
}

std::string describe(const ThreadFilter& filter) {
  std::string s;
  for (const int64_t pid : filter.pids) s += (s.empty() ? "" : " ") + ("--pid " + std::to_string(pid));
  for (const auto& t : filter.threads) s += (s.empty() ? "" : " ") + ("--thread '" + t + "'");
  return s;
}

}  // namespace

bool ThreadFilter::keeps_thread(int64_t tid, const std::string& name) const {
  if (threads.empty()) return true;
  return std::any_of(threads.begin(), threads.end(), [&](const std::string& t) {
    if (const auto wanted = as_tid(t)) return *wanted == tid;
    return fnmatch(t.c_str(), name.c_str(), 0) == 0;
  });
}

std::string apply_thread_filter(LoadResult& loaded, const ThreadFilter& filter) {
  if (filter.empty()) return "";
  const size_t processes_before = loaded.processes.size();
  const uint64_t threads_before = threads_of(loaded);
  const uint64_t samples_before = samples_of(loaded);
  std::erase_if(loaded.processes, [&](ProcessProfile& p) {
    if (!filter.pids.empty() &&
        std::find(filter.pids.begin(), filter.pids.end(), p.process.pid) == filter.pids.end()) {
      return true;
    }
    return !filter.threads.empty() && !filter_threads(p, filter);
  });
  return describe(filter) + ": " + std::to_string(loaded.processes.size()) + " of " +
         std::to_string(processes_before) + " process" + (processes_before == 1 ? "" : "es") +
         ", " + std::to_string(threads_of(loaded)) + " of " + std::to_string(threads_before) +
         " thread" + (threads_before == 1 ? "" : "s") + ", " + std::to_string(samples_of(loaded)) +
         " of " + std::to_string(samples_before) + " sample" + (samples_before == 1 ? "" : "s");
}

}  // namespace cprof::report
