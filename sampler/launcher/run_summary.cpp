#include "sampler/launcher/run_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "format/reader.h"

namespace cprof::launch {

std::set<std::string> results_files_in(const std::string& dir) {
  std::set<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".cprof") files.insert(entry.path().string());
  }
  return files;
}

RunSummary summarize_new_results(const std::string& dir, const std::set<std::string>& before) {
  RunSummary s;
  std::set<std::string> processes;
  for (const auto& path : results_files_in(dir)) {
    if (before.count(path) != 0) continue;
    ++s.files;
    try {
      const auto read = format::read_results_file(path, [&](format::Record&& r) {
        if (std::holds_alternative<format::SampleRecord>(r)) {
          ++s.samples;
        } else if (std::holds_alternative<format::ThreadRecord>(r)) {
          ++s.threads;
        } else if (std::holds_alternative<format::KernelRecord>(r)) {
          ++s.kernels;
        } else if (std::holds_alternative<format::CopyRecord>(r)) {
          ++s.copies;
        } else if (const auto* w = std::get_if<format::GpuTraceWindowRecord>(&r)) {
          ++s.gpu_windows;
          s.gpu_traced_ns += w->end_ns - w->start_ns;
          s.gpu_duty = w->duty;
        } else if (const auto* p = std::get_if<format::ProcessRecord>(&r)) {
          // A process may write more than one file (its GPU activity has its own).
          processes.insert(p->hostname + "/" + std::to_string(p->pid) + "/" + p->executable);
          if (format::is_gpu_engine(p->engine)) ++s.gpu_files;
        } else if (const auto* m = std::get_if<format::MessageRecord>(&r)) {
          if (m->level != format::MessageLevel::info &&
              std::find(s.warnings.begin(), s.warnings.end(), m->text) == s.warnings.end()) {
            s.warnings.push_back(m->text);
          }
        }
      });
      for (const auto& issue : read.issues) {
        s.problems.push_back(fmt::format("{}: offset {}: {}", path, issue.offset, issue.message));
      }
    } catch (const format::FormatError& e) {
      s.problems.emplace_back(e.what());
    }
  }
  s.processes = processes.size();
  return s;
}

void print_run_summary(FILE* out, const char* tool, const std::string& dir, const RunSummary& s) {
  for (const auto& w : s.warnings) fmt::print(out, "{}: warning: {}\n", tool, w);
  for (const auto& p : s.problems) fmt::print(out, "{}: warning: {}\n", tool, p);
  if (s.files == 0) {
    fmt::print(out, "{}: no results were written to {} (was the program started?)\n", tool, dir);
    return;
  }
  fmt::print(out, "{}: {} sample{} from {} thread{} in {} process{} written to {}\n", tool,
             s.samples, s.samples == 1 ? "" : "s", s.threads, s.threads == 1 ? "" : "s",
             s.processes, s.processes == 1 ? "" : "es", dir);
  if (s.gpu_files > 0) {
    // Said even when nothing was recorded: a GPU tool that saw no work is not silent.
    std::string windows;
    if (s.gpu_windows > 0) {
      windows = fmt::format(", traced in {} window{} ({:.0f}% of each period, {:.3f} s in all)",
                            s.gpu_windows, s.gpu_windows == 1 ? "" : "s", s.gpu_duty * 100,
                            static_cast<double>(s.gpu_traced_ns) * 1e-9);
    }
    fmt::print(out, "{}: GPU: {} kernel{} and {} cop{} recorded{}\n", tool, s.kernels,
               s.kernels == 1 ? "" : "s", s.copies, s.copies == 1 ? "y" : "ies", windows);
  }
  if (s.samples == 0) {
    fmt::print(out, "{}: warning: no samples: the program ran for less than one sampling period\n",
               tool);
  }
  fmt::print(out, "{}: view with: causal-report {}\n", tool, dir);
}

}  // namespace cprof::launch
