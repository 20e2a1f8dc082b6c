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
#include <stdexcept>
#include <system_error>
#include <tuple>

#include "format/reader.h"
#include "report/load/gpu_load.h"
#include "report/load/process_builder.h"

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
    // Named like a text input, or not a results file: what it holds decides, whatever it
    // is called (Coz's profile.jsonl is Coz's, not rows of ours).
    InputKind kind = input_kind_of(dir);
    if (kind != InputKind::results || !is_results_file(dir, kind)) {
      const auto by_content = text_input_by_content(dir);
      if (!by_content && kind == InputKind::results) {
        throw std::runtime_error(dir.string() +
                                 ": not a results, Coz, TSV or JSON-lines file (by its name "
                                 "or its first line)");
      }
      kind = by_content.value_or(kind);
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
    InputKind kind = input_kind_of(it->path());
    if (regular && kind != InputKind::results) {
      kind = text_input_by_content(it->path()).value_or(kind);
    } else if (regular && !is_results_file(it->path(), kind)) {
      // Coz's profile under any name (Coz's -o): its first record is `startup`.
      if (!starts_like_coz_profile(it->path())) continue;
      kind = InputKind::coz;
    }
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
  ProcessBuilder builder(p, keep_timeline, clock);
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
    uint64_t reused = 0;
    p.jit_symbols = parse_perf_map(in, &reused);
    if (!p.jit_symbols.empty()) {
      p.jit_map = std::move(map);
      if (!copied) {
        warnings.push_back(file.path.string() + ": JIT code named from " + p.jit_map.string() +
                           " (the process ended without copying it: killed?)");
      }
    }
    if (reused > 0) {
      // node reuses its code space: a sorting comparator compiled where a function that
      // ran earlier had been took that function's samples, at 34.5%, before it ever ran.
      warnings.push_back(
          file.path.string() + ": the JIT compiled other functions over the code of " +
          std::to_string(reused) + (reused == 1 ? " earlier one" : " earlier ones") + " (" +
          p.jit_map.filename().string() +
          " has no times): a sample there is named for the function compiled last, which may "
          "not be the one that ran");
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
