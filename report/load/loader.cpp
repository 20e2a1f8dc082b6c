#include "report/load/loader.h"

#include <sys/stat.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <system_error>
#include <tuple>
#include <unordered_map>

#include "causal/idle_tail.h"
#include "format/reader.h"
#include "report/load/encoded_stacks.h"
#include "report/load/gpu_load.h"

namespace cprof::report {
namespace fs = std::filesystem;

namespace {

// A file named like a results file (results-format.md: `....cprof`, the GPU companion
// `....gpu.cprof` too) is one, readable or not: an empty or damaged one is reported when
// it is loaded, never skipped in silence. Files named otherwise count by their header.
bool named_like_results_file(const fs::path& path) { return path.extension() == ".cprof"; }

bool is_results_file(const fs::path& path, InputKind kind) {
  return kind != InputKind::results || named_like_results_file(path) ||
         format::looks_like_results_file(path);
}

}  // namespace

std::vector<ResultsFile> find_results_files(const fs::path& dir, int max_depth) {
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) {  // one file named on the command line
    const InputKind kind = input_kind_of(dir);
    if (!is_results_file(dir, kind)) {
      throw std::runtime_error(dir.string() + ": not a results, Coz, TSV or JSON-lines file");
    }
    return {ResultsFile{.path = dir, .run = "", .bytes = fs::file_size(dir, ec), .kind = kind}};
  }
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error(dir.string() + ": " +
                             (fs::exists(dir, ec) ? "not a directory" : "no such directory"));
  }
  std::vector<ResultsFile> files;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot read directory: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_directory(ec)) {
      if (it.depth() >= max_depth) it.disable_recursion_pending();
      continue;
    }
    // Something else named like a results file (a FIFO, a link that loops or dangles) is
    // listed too: loading it says what it is instead of skipping it in silence.
    const bool regular = it->is_regular_file(ec);
    if (!regular && !named_like_results_file(it->path())) continue;
    const InputKind kind = input_kind_of(it->path());
    if (regular && !is_results_file(it->path(), kind)) continue;
    ResultsFile f;
    f.path = it->path();
    f.kind = kind;
    const auto parent = it->path().parent_path().lexically_relative(dir);
    f.run = parent == "." ? "" : parent.string();
    f.bytes = regular ? it->file_size(ec) : 0;
    if (ec) f.bytes = 0;
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(),
            [](const ResultsFile& a, const ResultsFile& b) { return a.path < b.path; });
  return files;
}

namespace {

// 2^50 ns, 13 days: more than any one sample can weigh, small enough that 2^13 of them
// still sum without wrapping.
constexpr uint64_t kMaxSampleWeightNs = uint64_t{1} << 50;

// Folds records into a ProcessProfile as they are read.
class Builder {
 public:
  Builder(ProcessProfile& p, bool keep_timeline, ClockChoice clock)
      : p_(p), keep_timeline_(keep_timeline), choice_(clock) {}

  // Text inputs have no clock per sample (every row reads as a CPU-clock sample): all of
  // their samples make the profile, whatever the choice.
  void take_every_sample() { every_sample_ = true; }

  void operator()(format::Record&& record) {
    std::visit([this](auto&& r) { add(std::forward<decltype(r)>(r)); }, std::move(record));
  }

  // Samples of a results file arrive as views, their frames still encoded (see
  // encoded_stacks.h: only stacks not seen before are decoded).
  void sample(const format::SampleView& v) {
    add_sample(v.tid, v.time_ns, v.weight_ns, v.truncated, v.clock, v.frame_count > 0,
               [&] { return encoded_.intern(v); }, v.counter_deltas);
  }

  uint64_t implausible_weights() const { return implausible_weights_; }

  void finish() {
    if (!clock_decided_) decide_clock();  // no sample: still the clock it was sampled on
    std::sort(p_.modules.begin(), p_.modules.end(),
              [](const auto& a, const auto& b) { return a.start < b.start; });
    // An event may be corrected at exit (unavailable, counted zero): the last record of an
    // index wins (results-format.md). Stable, so "last" is the file's order.
    std::stable_sort(p_.events.begin(), p_.events.end(),
                     [](const auto& a, const auto& b) { return a.index < b.index; });
    std::vector<format::EventRecord> events;
    for (auto& e : p_.events) {
      if (!events.empty() && events.back().index == e.index) {
        events.back() = std::move(e);
      } else {
        events.push_back(std::move(e));
      }
    }
    p_.events = std::move(events);
    p_.idle_tail_experiments = causal::drop_idle_tail(p_.experiments);
  }

 private:
  void saw_time(uint64_t t) {
    if (t == 0) return;
    p_.first_time_ns = std::min(p_.first_time_ns, t);
    p_.last_time_ns = std::max(p_.last_time_ns, t);
  }

  uint32_t thread_index(int64_t tid) {
    if (tid == last_tid_ && last_thread_ != ~uint32_t{0}) return last_thread_;
    auto [it, inserted] = thread_of_tid_.try_emplace(tid, static_cast<uint32_t>(p_.threads.size()));
    if (inserted) p_.threads.push_back(ThreadInfo{.tid = tid});
    last_tid_ = tid;
    last_thread_ = it->second;
    return it->second;
  }

  void add(format::ProcessRecord&& r) {
    p_.has_process_record = true;
    p_.process = std::move(r);
  }
  void add(format::ModuleRecord&& r) {
    saw_time(r.time_ns);
    p_.modules.push_back(std::move(r));
  }
  void add(format::ThreadRecord&& r) {
    saw_time(r.time_ns);
    auto& t = p_.threads[thread_index(r.tid)];
    t.name = std::move(r.name);
    t.start_ns = r.time_ns;
    t.existed_before_start = r.existed_before_start;
    t.seen_record = true;
  }
  void add(format::ThreadNameRecord&& r) {
    saw_time(r.time_ns);
    p_.threads[thread_index(r.tid)].name = std::move(r.name);
  }
  void add(format::ThreadEndRecord&& r) {
    saw_time(r.time_ns);
    auto& t = p_.threads[thread_index(r.tid)];
    t.ended = true;
    t.end_ns = r.time_ns;
    t.cpu_time_ns = r.cpu_time_ns;
    t.dropped_samples = r.dropped_samples;
  }
  void add(format::EventRecord&& r) { p_.events.push_back(std::move(r)); }
  void add(format::MetricRecord&& r) {
    saw_time(r.time_ns);
    p_.metrics.push_back(r);
  }
  void add(format::MessageRecord&& r) {
    saw_time(r.time_ns);
    p_.messages.push_back(std::move(r));
  }

  void add(format::ExperimentRecord&& r) {
    saw_time(r.time_ns);
    p_.experiments.push_back(std::move(r));
  }
  void add(format::ProgressPointRecord&& r) { p_.progress_points.push_back(std::move(r)); }
  void add(format::RegionRecord&& r) { p_.regions.push_back(std::move(r)); }
  void add(format::RegionSpansRecord&& r) { p_.region_spans.push_back(std::move(r)); }

  void add(format::KernelRecord&& r) {
    saw_time(r.time_ns);
    gpu_.add(std::move(r));
  }
  void add(format::CopyRecord&& r) {
    saw_time(r.time_ns);
    gpu_.add(std::move(r));
  }
  void add(format::GpuDeviceRecord&& r) { gpu_.add(std::move(r)); }
  void add(format::GpuTraceWindowRecord&& r) {
    saw_time(r.start_ns);
    saw_time(r.end_ns);
    gpu_.add(r);
  }

  // Record types this part does not use yet are read and ignored, so a newer writer
  // never breaks the sampled profile.
  template <typename Other>
  void add(Other&& /*unused*/) {}

  void add(format::SampleRecord&& r) {
    add_sample(r.tid, r.time_ns, r.weight_ns, r.truncated, r.clock, !r.frames.empty(),
               [&] { return p_.stacks.intern(r.frames); }, r.counter_deltas);
  }

  // Both sample paths; `intern` gives the stack's id and is called only with frames.
  template <typename Intern>
  void add_sample(int64_t tid, uint64_t time_ns, uint64_t weight_ns, bool truncated,
                  format::SampleClock clock, bool has_frames, Intern&& intern,
                  std::span<const uint64_t> counter_deltas) {
    // No sample stands for more than kMaxSampleWeightNs: a larger weight is damage (a
    // flipped bit, a crafted file), and summed it would wrap the totals.
    if (weight_ns > kMaxSampleWeightNs) {
      weight_ns = kMaxSampleWeightNs;
      ++implausible_weights_;
    }
    saw_time(time_ns);
    if (!clock_decided_) decide_clock();
    p_.wall_clock_samples += clock == format::SampleClock::wall;
    const uint32_t thread = thread_index(tid);
    auto& t = p_.threads[thread];
    if (clock == format::SampleClock::cpu) t.cpu_weight_ns += weight_ns;
    if (clock != p_.clock && !every_sample_) {
      // Set aside: not part of the profile, but its counter deltas are (counted once).
      ++p_.other_clock_samples;
      p_.other_clock_weight_ns += weight_ns;
      if (has_frames) add_count(other_counts_, p_.other_clock_counts, thread, intern(), weight_ns,
                                counter_deltas);
      return;
    }
    ++p_.samples;
    p_.weight_ns += weight_ns;
    p_.truncated_samples += truncated;
    ++t.samples;
    t.weight_ns += weight_ns;
    if (!has_frames) {
      ++p_.empty_samples;
      return;
    }
    const uint32_t stack = intern();
    if (keep_timeline_) {
      p_.timeline.push_back(
          {.time_ns = time_ns,
           .weight_ns = static_cast<uint32_t>(std::min<uint64_t>(weight_ns, UINT32_MAX)),
           .thread = thread,
           .stack = stack});
    }
    add_count(counts_, p_.counts, thread, stack, weight_ns, counter_deltas);
  }

  static void add_count(IndexMap& index_of, std::vector<StackCount>& counts, uint32_t thread,
                        uint32_t stack, uint64_t weight_ns,
                        std::span<const uint64_t> counter_deltas) {
    bool inserted = false;
    const uint32_t index = index_of.find_or_insert((static_cast<uint64_t>(thread) << 32) | stack,
                                                   static_cast<uint32_t>(counts.size()), inserted);
    if (inserted) counts.push_back(StackCount{.thread = thread, .stack = stack});
    auto& c = counts[index];
    ++c.samples;
    c.weight_ns += weight_ns;
    if (!counter_deltas.empty()) {
      if (c.counters.size() < counter_deltas.size()) c.counters.resize(counter_deltas.size());
      for (size_t i = 0; i < counter_deltas.size(); ++i) c.counters[i] += counter_deltas[i];
    }
  }

  // The process record comes first in a results file, so by the first sample it has said
  // how the process was sampled. A clock asked for that the process was not sampled on
  // falls back to the one it was (its profile is never empty for want of the other).
  void decide_clock() {
    clock_decided_ = true;
    const bool wall = p_.sampled_on_wall_clock();
    const bool cpu = !p_.has_process_record || p_.process.clock.find("cpu") != std::string::npos ||
                     p_.process.clock.empty();
    const bool use_wall = every_sample_ ? p_.process.clock == "wall"
                          : choice_ == ClockChoice::cpu ? !cpu
                                                        : wall;  // wall, or automatic
    p_.clock = use_wall ? format::SampleClock::wall : format::SampleClock::cpu;
  }

  ProcessProfile& p_;
  bool keep_timeline_ = false;
  std::unordered_map<int64_t, uint32_t> thread_of_tid_;
  int64_t last_tid_ = 0;
  uint32_t last_thread_ = ~uint32_t{0};
  ClockChoice choice_ = ClockChoice::automatic;
  bool clock_decided_ = false;
  uint64_t implausible_weights_ = 0;
  bool every_sample_ = false;
  IndexMap counts_;
  IndexMap other_counts_;  // other_clock_counts by (thread, stack)
  EncodedStacks encoded_{p_.stacks};  // the samples' stacks by their bytes in the file
  GpuActivityBuilder gpu_{p_.gpu};
};

const char* text_input_label(InputKind kind) {
  switch (kind) {
    case InputKind::coz:
      return "Coz";
    case InputKind::tsv:
      return "TSV";
    default:
      return "JSON-lines";
  }
}

// Why a text input gave no record at all: its bad lines were warnings, but a file none of
// whose lines could be used is one failure, not an empty process that counts as read.
std::string nothing_readable(const ResultsFile& file, const std::vector<std::string>& bad_lines) {
  const std::string name = file.path.string();
  const std::string label = text_input_label(file.kind);
  if (bad_lines.empty()) return name + ": no " + label + " records in it";
  // The line warnings read "FILE:LINE: what"; the first is quoted without its file.
  const std::string& first = bad_lines.front();
  const std::string where =
      first.starts_with(name + ":") ? "line " + first.substr(name.size() + 1) : first;
  const std::string lines =
      bad_lines.size() == 1
          ? "its one line could not be read"
          : "none of its " + std::to_string(bad_lines.size()) + " lines could be read";
  return name + ": not a " + label + (file.kind == InputKind::coz ? " profile" : " file") + ": " +
         lines + " (" + where + ")";
}

// A file's modification time comes from the kernel's coarse clock, up to a scheduler tick
// (4 ms at HZ=250, 10 ms at HZ=100) behind CLOCK_REALTIME: a map written in the process's
// first milliseconds can look older than the process. Another process with the same pid
// would have written its map long before (the pids go round 4 million).
constexpr uint64_t kFileClockSlackNs = 50'000'000;

// The perf map a JIT runtime keeps while it runs (/tmp/perf-PID.map), for a process of
// this host whose sampler did not copy it (killed before its exit path); empty when there
// is none, or when it is older than the process (another process had that pid).
fs::path runtime_perf_map(const format::ProcessRecord& process) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || process.hostname != host) return {};
  const fs::path map = "/tmp/perf-" + std::to_string(process.pid) + ".map";
  struct stat st {};
  if (::stat(map.c_str(), &st) != 0) return {};
  const uint64_t modified_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                               static_cast<uint64_t>(st.st_mtim.tv_nsec);
  return modified_ns + kFileClockSlackNs >= process.start_realtime_ns ? map : fs::path{};
}

}  // namespace

ProcessProfile load_process_file(const ResultsFile& file, std::vector<std::string>& warnings,
                                 bool keep_timeline, ClockChoice clock) {
  std::error_code ec;
  if (fs::file_size(file.path, ec) == 0 && !ec) {
    // ResultsWriter::open creates the file and writes its header at once: an empty one is
    // from a process that ended (or a disk that filled) in between.
    throw format::FormatError(file.path.string() +
                              (file.kind == InputKind::results
                                   ? ": empty: the process may have ended before writing"
                                   : ": empty"));
  }
  ProcessProfile p;
  p.file = file.path;
  p.run = file.run;
  p.file_bytes = file.bytes;
  Builder builder(p, keep_timeline, clock);
  if (file.kind != InputKind::results) {
    builder.take_every_sample();
    std::vector<std::string> bad_lines;
    uint64_t records = 0;
    read_text_input(
        file.path, file.kind,
        [&](format::Record&& r) {
          ++records;
          builder(std::move(r));
        },
        bad_lines);
    if (records == 0) throw format::FormatError(nothing_readable(file, bad_lines));
    warnings.insert(warnings.end(), std::make_move_iterator(bad_lines.begin()),
                    std::make_move_iterator(bad_lines.end()));
    builder.finish();
    // Text inputs may leave out the process row: the file stands for one process.
    if (!p.has_process_record) {
      p.has_process_record = true;
      p.process.executable = file.path.filename().string();
      p.process.engine = input_kind_name(file.kind);
    }
    return p;
  }
  const auto summary = format::read_results_file(
      file.path, [&](format::Record&& r) { builder(std::move(r)); },
      [&](const format::SampleView& v) { builder.sample(v); });
  builder.finish();
  p.unknown_records = summary.unknown_records;
  p.skipped_bytes = summary.skipped_bytes;
  for (const auto& issue : summary.issues) {
    warnings.push_back(file.path.string() + ": offset " + std::to_string(issue.offset) + ": " +
                       issue.message);
  }
  if (const uint64_t n = builder.implausible_weights(); n > 0) {
    warnings.push_back(file.path.string() + ": " + std::to_string(n) +
                       " samples weigh more than 13 days each (damaged?): counted as 13 days");
  }
  p.cut = summary.framed && !summary.ended;
  if (p.cut) {
    warnings.push_back(file.path.string() +
                       ": no end record: the process was killed (SIGKILL), is still running, "
                       "or the file was cut (a full disk, a partial copy); it holds what was "
                       "written before");
  }
  if (!p.has_process_record) {
    warnings.push_back(file.path.string() +
                       ": no process record (damaged start?); pid and settings unknown");
  }
  // The JIT symbols the process's runtime (node, ...) wrote, copied by the sampler at exit,
  // or where a process that was killed left them, on this host.
  fs::path map = fs::path(file.path).replace_extension(".perf-map");
  const bool copied = fs::exists(map, ec);
  if (!copied && p.has_process_record) map = runtime_perf_map(p.process);
  if (!map.empty() && fs::is_regular_file(map, ec)) {  // a FIFO would block the read
    std::ifstream in(map);
    p.jit_symbols = parse_perf_map(in);
    if (!p.jit_symbols.empty()) {
      p.jit_map = std::move(map);
      if (!copied) {
        warnings.push_back(file.path.string() + ": JIT code named from " + p.jit_map.string() +
                           " (the process ended without copying it: killed?)");
      }
    }
  }
  return p;
}

namespace {

// A results file copied under another name (or into another run's folder) holds the same
// process, started at the same instant, and the same bytes: counted once, the first in
// path order, with a warning for each copy. (A process may write two files of one
// engine, the GPU hooks' opened twice: their contents differ.)
void drop_copied_files(LoadResult& result) {
  using Key = std::tuple<std::string, int64_t, uint64_t, uint64_t, std::string, uint64_t, uint64_t,
                         uint64_t>;
  std::map<Key, std::string> first;
  std::vector<ProcessProfile> kept;
  kept.reserve(result.processes.size());
  for (auto& p : result.processes) {
    if (p.has_process_record && p.process.start_realtime_ns != 0) {
      Key key{p.process.hostname,
              p.process.pid,
              p.process.start_realtime_ns,
              p.process.start_monotonic_ns,
              p.process.engine,
              p.file_bytes,
              p.samples,
              p.weight_ns};
      const auto [it, inserted] = first.try_emplace(std::move(key), p.file.string());
      if (!inserted) {
        result.warnings.push_back(p.file.string() + ": the same process as " + it->second +
                                  " (pid " + std::to_string(p.process.pid) +
                                  ", same start): a copy, not counted again");
        continue;
      }
    }
    kept.push_back(std::move(p));
  }
  result.processes = std::move(kept);
}

}  // namespace

LoadResult load_results(const std::vector<ResultsFile>& files, const LoadOptions& options) {
  struct Slot {
    std::optional<ProcessProfile> profile;
    std::vector<std::string> warnings;
  };
  std::vector<Slot> slots(files.size());
  uint64_t total_bytes = 0;
  for (const auto& f : files) total_bytes += f.bytes;
  const bool show_progress = options.progress && total_bytes > (64u << 20);
  std::atomic<uint64_t> done_bytes{0};
  std::atomic<size_t> done_files{0};
  std::mutex progress_mutex;

  tbb::parallel_for(size_t{0}, files.size(), [&](size_t i) {
    auto& slot = slots[i];
    try {
      slot.profile = load_process_file(files[i], slot.warnings, options.keep_timeline, options.clock);
    } catch (const std::exception& e) {
      // FormatError and I/O errors name the file already; bad_alloc and friends do not.
      const std::string what = e.what();
      slot.warnings.push_back(what.starts_with(files[i].path.string())
                                  ? what
                                  : files[i].path.string() + ": " + what);
    }
    const uint64_t bytes = done_bytes += files[i].bytes;
    const size_t n = ++done_files;
    if (show_progress) {
      std::lock_guard lock(progress_mutex);
      std::fprintf(stderr, "\rloading results: %zu/%zu files, %.0f of %.0f MB", n, files.size(),
                   static_cast<double>(bytes) / 1e6, static_cast<double>(total_bytes) / 1e6);
      if (n == files.size()) std::fputc('\n', stderr);
      std::fflush(stderr);
    }
  });

  LoadResult result;
  result.files_found = files.size();
  for (auto& slot : slots) {
    for (auto& w : slot.warnings) result.warnings.push_back(std::move(w));
    if (slot.profile) {
      result.processes.push_back(std::move(*slot.profile));
    } else {
      // A file that failed left one warning, its reason (load_process_file keeps a text
      // input's line warnings only when the file loads).
      if (result.files_failed++ == 0 && !result.warnings.empty()) {
        result.first_failure = result.warnings.back();
      }
    }
  }
  drop_copied_files(result);
  merge_gpu_companions(result.processes);  // a .gpu.cprof file is its sampler's process
  return result;
}

}  // namespace cprof::report
