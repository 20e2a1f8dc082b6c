#include "sampler/launcher/run_summary.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include "format/reader.h"
#include "format/utf8.h"
#include "format/writer.h"
#include "sampler/launcher/run_processes.h"
#include "sampler/runtime/process_identity.h"
#include "sampler/runtime/terminating_signals.h"

namespace cprof::launch {
namespace {

// A file of this launcher's run: new since it started, and of its rank when it is one.
bool new_of_rank(const std::string& path, const std::set<std::string>& before, int64_t rank) {
  return before.count(path) == 0 && (rank < 0 || sampler::rank_of_results_file(path) == rank);
}

struct ProcessId {
  std::string host;
  int64_t pid = 0;
  bool operator<(const ProcessId& o) const { return std::tie(host, pid) < std::tie(o.host, o.pid); }
};

// The process that writes `path`, from its process record (the file's first record);
// nullopt while it has none (just created) or when the file cannot be read.
std::optional<ProcessId> writer_of(const std::string& path) {
  struct Found {
    ProcessId id;
  };
  try {
    format::read_results_file(
        path,
        [](format::Record&& r) {
          if (const auto* p = std::get_if<format::ProcessRecord>(&r))
            throw Found{{p->hostname, p->pid}};
        },
        [](const format::SampleView&) {});
  } catch (const Found& f) {
    return f.id;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::string this_host() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

// Still running: the pid exists and is not a zombie (a zombie has written all it will;
// only its parent's wait is missing).
bool running(int64_t pid) {
  if (pid <= 0 || pid > INT_MAX || pid == ::getpid()) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  const auto stat = read_proc_stat(std::to_string(pid));
  return !stat || !stat->done();  // no /proc: the pid is all there is to go by
}

// Where /proc cannot tell the run's processes: a file without a process record yet is
// taken for a process that just started, for as long as it is this young (the runtime
// writes the record within a flush, 50 ms).
bool just_created(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const double age = static_cast<double>(now.tv_sec - st.st_mtim.tv_sec) +
                     static_cast<double>(now.tv_nsec - st.st_mtim.tv_nsec) * 1e-9;
  return age < 0.5;
}

}  // namespace

std::string plural(uint64_t n, const char* word, const char* words) {
  if (n == 1) return fmt::format("1 {}", word);
  return words != nullptr ? fmt::format("{} {}", n, words) : fmt::format("{} {}s", n, word);
}

std::set<std::string> results_files_in(const std::string& dir) {
  std::set<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".cprof") files.insert(entry.path().string());
  }
  return files;
}

Writers wait_for_writers(const std::string& dir, const std::set<std::string>& before,
                         std::chrono::milliseconds limit, int64_t rank) {
  const std::string host = this_host();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::map<std::string, ProcessId> writers;  // file -> its process, read once
  for (;;) {
    Writers w;
    std::set<ProcessId> live;
    size_t starting = 0;  // files without a process record yet
    for (const auto& path : results_files_in(dir)) {
      if (!new_of_rank(path, before, rank)) continue;
      auto it = writers.find(path);
      if (it == writers.end()) {
        if (auto id = writer_of(path)) {
          it = writers.emplace(path, std::move(*id)).first;
        } else if (just_created(path)) {
          w.files.insert(path);
          ++starting;
          continue;
        } else {
          continue;
        }
      }
      if (it->second.host != host || !running(it->second.pid)) continue;
      w.files.insert(path);
      live.insert(it->second);
    }
    // Processes of the run with no record of theirs yet, perhaps no file: a forked child
    // not yet past its fork handler. Where /proc says nothing, young files stand for them.
    if (const auto others = processes_of_run(dir, rank)) {
      for (const int64_t pid : *others) live.insert(ProcessId{host, pid});
      starting = 0;
    }
    w.running = live.size() + starting;
    if (w.running == 0 || std::chrono::steady_clock::now() >= deadline) return w;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

RunSummary summarize_new_results(const std::string& dir, const std::set<std::string>& before,
                                 const Writers& writers,
                                 const std::function<void(const format::Record&)>& also,
                                 int64_t rank) {
  RunSummary s;
  s.rank = rank;
  s.still_running = writers.running;
  // The report's count: every readable file, less the GPU hooks' files of a process
  // that has a sampler's file too (report/load/gpu_load.h).
  struct FileProcess {
    bool gpu_only = false;  // a GPU hooks' file: GPU engine, no samples
    std::optional<ProcessId> id;
  };
  std::vector<FileProcess> readable;
  for (const auto& path : results_files_in(dir)) {
    if (!new_of_rank(path, before, rank)) continue;
    ++s.files;
    FileProcess file;
    bool gpu_engine = false;
    bool cut_by_limit = false;  // its writer stopped at RLIMIT_FSIZE and said so
    uint64_t samples = 0;
    try {
      const auto read = format::read_results_file(path, [&](format::Record&& r) {
        if (std::holds_alternative<format::SampleRecord>(r)) {
          ++samples;
        } else if (std::holds_alternative<format::ThreadRecord>(r)) {
          ++s.threads;
        } else if (const auto* end = std::get_if<format::ThreadEndRecord>(&r)) {
          s.dropped += end->dropped_samples;
        } else if (std::holds_alternative<format::KernelRecord>(r)) {
          ++s.kernels;
        } else if (std::holds_alternative<format::CopyRecord>(r)) {
          ++s.copies;
        } else if (const auto* w = std::get_if<format::GpuTraceWindowRecord>(&r)) {
          ++s.gpu_windows;
          s.gpu_traced_ns += w->end_ns - w->start_ns;
          s.gpu_duty = w->duty;
        } else if (const auto* p = std::get_if<format::ProcessRecord>(&r)) {
          file.id = ProcessId{p->hostname, p->pid};
          gpu_engine = format::is_gpu_engine(p->engine);
          if (!gpu_engine) s.period_ns = std::max(s.period_ns, p->period_ns);
          if (gpu_engine) ++s.gpu_files;
        } else if (const auto* m = std::get_if<format::MessageRecord>(&r)) {
          if (m->level == format::MessageLevel::info &&
              m->text.starts_with(sampler::kWrittenBeforeSignal)) {
            ++s.written_before_signal;
          }
          if (m->level == format::MessageLevel::info &&
              m->text == sampler::kWrittenAfterAbortHandler) {
            ++s.written_after_abort_handler;
          }
          if (m->text.starts_with(format::kResultsCutAt)) cut_by_limit = true;
          if (m->level != format::MessageLevel::info &&
              std::find(s.warnings.begin(), s.warnings.end(), m->text) == s.warnings.end()) {
            s.warnings.push_back(m->text);
          }
        }
        if (also) also(r);
      });
      // A file still being written may end in a chunk not finished yet: not damage.
      if (writers.files.count(path) == 0) {
        for (const auto& issue : read.issues) {
          s.problems.push_back(fmt::format("{}: offset {}: {}", path, issue.offset, issue.message));
        }
        if (read.framed && !read.ended && !cut_by_limit) ++s.cut_files;
      }
    } catch (const format::FormatError& e) {
      s.problems.emplace_back(e.what());
      continue;
    }
    s.samples += samples;
    file.gpu_only = gpu_engine && samples == 0;
    readable.push_back(std::move(file));
  }
  s.processes = readable.size();
  for (const auto& f : readable) {
    if (!f.gpu_only || !f.id) continue;
    const bool has_owner = std::any_of(readable.begin(), readable.end(), [&](const FileProcess& o) {
      return !o.gpu_only && o.id && o.id->host == f.id->host && o.id->pid == f.id->pid;
    });
    if (has_owner) --s.processes;
  }
  return s;
}

namespace {

// About what loading and starting the runtime costs a process in CPU time before its
// first thread is sampled (docs/benchmarks.md, "Start-up"): 2-3 ms.
constexpr uint64_t kStartCpuNs = 5000000;

std::string milliseconds(uint64_t ns) {
  return fmt::format("{:.1f} ms", static_cast<double>(ns) * 1e-6);
}

}  // namespace

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : fmt::format("signal {}", sig);
}

namespace {

// Bytes free to an unprivileged writer on the file system that holds `dir`; -1 unknown.
int64_t free_bytes(const std::string& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return -1;
  return static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
}

// Why results may be missing or short, where the run's files say it.
void print_losses(FILE* out, const char* tool, const std::string& dir, const RunSummary& s,
                  const ProgramEnd& end) {
  if ((s.cut_files > 0 || !s.problems.empty())) {
    if (const int64_t left = free_bytes(dir); left >= 0 && left < (int64_t{1} << 20)) {
      fmt::print(out,
                 "{}: warning: the file system of {} is full ({} bytes free): the results "
                 "were cut where it filled (No space left on device)\n",
                 tool, dir, left);
    } else if (s.cut_files > 0 && end.term_signal == 0) {
      fmt::print(out,
                 "{}: warning: {} of the run end without their end record: a process was "
                 "killed (SIGKILL) or its writing stopped; they hold what was written before\n",
                 tool, plural(s.cut_files, "results file"));
    }
  }
  const uint64_t taken = s.samples + s.dropped;
  if (s.dropped > 0 && s.dropped * 100 >= taken) {
    fmt::print(out,
               "{}: warning: {} of {} taken ({:.1f}%) were dropped: the threads' buffers "
               "had no room (the process line of causal-report counts them per process); the "
               "times shown are low by that much\n",
               tool, plural(s.dropped, "sample"), taken,
               100.0 * static_cast<double>(s.dropped) / static_cast<double>(taken));
  }
}

}  // namespace

void print_run_summary(FILE* out, const char* tool, const std::string& dir, const RunSummary& s,
                       const ProgramEnd& end) {
  // The runtime's messages can carry a program's names (any bytes): escaped for the terminal.
  for (const auto& w : s.warnings) {
    fmt::print(out, "{}: warning: {}\n", tool, format::printable_text(w));
  }
  for (const auto& p : s.problems) {
    fmt::print(out, "{}: warning: {}\n", tool, format::printable_text(p));
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    fmt::print(out,
               "{}: warning: the results directory {} was removed during the run: its "
               "results are lost\n",
               tool, dir);
    return;
  }
  if (s.files == 0) {
    fmt::print(out, "{}: no results were written to {} (was the program started?)\n", tool, dir);
    return;
  }
  print_losses(out, tool, dir, s, end);
  fmt::print(out, "{}: {}{} from {} in {} written to {}\n", tool,
             s.rank >= 0 ? fmt::format("rank {}: ", s.rank) : std::string(),
             plural(s.samples, "sample"), plural(s.threads, "thread"),
             plural(s.processes, "process", "processes"), dir);
  if (s.still_running > 0) {
    const bool one = s.still_running == 1;
    fmt::print(out,
               "{}: {} {} still running when this summary was made: it counts what {} written "
               "so far (causal-report {} reads it all once {})\n",
               tool, plural(s.still_running, "process", "processes"), one ? "was" : "were",
               one ? "it has" : "they have", dir, one ? "it ends" : "they end");
  }
  if (s.gpu_files > 0) {
    // Said even when nothing was recorded: a GPU tool that saw no work is not silent.
    std::string windows;
    if (s.gpu_windows > 0) {
      windows = fmt::format(", traced in {} ({:.0f}% of each period, {:.3f} s in all)",
                            plural(s.gpu_windows, "window"), s.gpu_duty * 100,
                            static_cast<double>(s.gpu_traced_ns) * 1e-9);
    }
    fmt::print(out, "{}: GPU: {} and {} recorded{}\n", tool, plural(s.kernels, "kernel"),
               plural(s.copies, "copy", "copies"), windows);
  }
  const bool written = s.written_before_signal > 0;
  if (end.term_signal == SIGABRT && !written && s.written_after_abort_handler > 0) {
    // abort() ran the program's handler, which returned, then ended the process past the
    // runtime; the runtime wrote its samples as the handler returned.
    fmt::print(out, "{}: note: the program was ended by SIGABRT after its own handler "
               "returned: the samples were written then, the threads' end records (their CPU "
               "times) were not\n", tool);
  } else if (end.term_signal != 0 && !written) {
    // The runtime writes every 50 ms (CPROF_FLUSH_MS); a signal it does not catch
    // (SIGKILL, one the program handles and then dies of by other means) leaves what it
    // buffered since unwritten.
    fmt::print(out, "{}: warning: the program was killed by {}: the samples it took after its "
               "last write are lost\n", tool, signal_name(end.term_signal));
  }
  if (s.samples == 0) {
    if (end.cpu_ns == 0 || s.period_ns == 0) {
      fmt::print(out, "{}: warning: no samples: the program ran for less than one sampling "
                 "period\n", tool);
    } else if (end.cpu_ns < 5 * s.period_ns + kStartCpuNs) {
      // Part of that time is the runtime's own start, before the first thread is armed.
      fmt::print(out, "{}: warning: no samples: the program used only {} of CPU time (a sample "
                 "is taken every {} of it)\n", tool, milliseconds(end.cpu_ns),
                 milliseconds(s.period_ns));
    } else {
      fmt::print(out, "{}: warning: no samples in {} of CPU time (one is due every {}): "
                 "the program {}\n", tool, milliseconds(end.cpu_ns), milliseconds(s.period_ns),
                 end.term_signal != 0 && !written ? "was killed before it wrote any"
                                      : "blocked the sampling signal, or its sampling stopped");
    }
  }
  // Under mpirun every rank's launcher sums up; one of them says how to see the whole job.
  if (s.rank <= 0) fmt::print(out, "{}: view with: causal-report {}\n", tool, dir);
}

}  // namespace cprof::launch
