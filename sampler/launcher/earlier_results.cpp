#include "sampler/launcher/earlier_results.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <system_error>

#include "sampler/launcher/run_summary.h"
#include "sampler/runtime/process_identity.h"

namespace cprof::launch {
namespace {

namespace fs = std::filesystem;

// Files a run writes into its directory: results files and the runtime's copies of JIT
// maps (jit_map.h).
bool is_results_file(const fs::path& p) {
  return p.extension() == ".cprof" || p.extension() == ".perf-map";
}

struct Contents {
  size_t results = 0;  // results files, top level and one level down
  size_t others = 0;   // anything else
};

Contents contents_of(const fs::path& dir) {
  Contents c;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) && !entry.is_symlink(ec)) {
      Contents inner;
      for (const auto& e : fs::directory_iterator(entry.path(), ec)) {
        (is_results_file(e.path()) ? inner.results : inner.others) += 1;
      }
      c.results += inner.results;
      // A subdirectory of runs (DIR/run1/*.cprof) is results; any other is not ours.
      c.others += inner.results == 0 || inner.others > 0 ? 1 : 0;
    } else {
      (is_results_file(entry.path()) ? c.results : c.others) += 1;
    }
  }
  return c;
}

}  // namespace

EarlierResults set_earlier_results_aside(const std::string& dir, bool append) {
  EarlierResults out;
  std::error_code ec;
  // The ranks of an MPI job (or Slurm tasks) each start a launcher with the same -o: they
  // share it by design.
  if (append || sampler::rank_from_environment() >= 0 || !fs::is_directory(dir, ec)) return out;
  const Contents c = contents_of(dir);
  if (c.results == 0) return out;
  const std::string files = plural(c.results, "results file");
  if (const Writers w = wait_for_writers(dir, {}, std::chrono::milliseconds(0)); w.running > 0) {
    out.said = fmt::format(
        "{}/ is being written by another run ({} still writing): this run adds to it, and "
        "causal-report will merge them; give another -o to keep them apart",
        dir, plural(w.running, "process", "processes"));
    return out;
  }
  if (c.others > 0) {
    out.error = fmt::format(
        "results directory '{}' holds {} of an earlier run and other files; give a directory of "
        "its own with -o, or --append to add this run to that one",
        dir, files);
    return out;
  }
  fs::path path(dir);
  if (!path.has_filename()) path = path.parent_path();  // "results/"
  const fs::path old = path.string() + ".old";
  // What stopped the move, in the error line.
  const auto cannot = [&](const std::string& what) {
    out.error = fmt::format(
        "results directory '{}' holds an earlier run, and {}: {}; give another -o, or --append",
        dir, what, ec.message());
    return out;
  };
  fs::remove_all(old, ec);
  if (ec) return cannot(old.string() + ", an older run, cannot be removed to make room");
  fs::rename(path, old, ec);
  if (ec) return cannot("it cannot be moved to " + old.string());
  out.said = fmt::format(
      "{}/ held an earlier run ({}): moved to {}/ (--append adds to a "
      "directory instead)",
      path.string(), files, old.string());
  return out;
}

}  // namespace cprof::launch
