// causal-report on an MPI job of many ranks, made from a real one: the rank files of a
// run under mpirun (sample-run -o DIR, one file per rank), copied round-robin into
// directories of N ranks with each copy's pid and rank renumbered (a job's ranks on one
// host each, so that none merges with another), then the report run on each: wall and CPU
// time, peak RSS, and how they grow from the smallest N to the largest.
//
//   cprof-bench-rank-files --from DIR [--ranks 64,128,256,512,1024] [--work DIR] [--keep]
//                          [--formats text,json]
//
// The report reads and symbolizes the real program (its module is on disk): what a user's
// report of a large job costs, symbolization included (once per distinct module).
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/report/timed_run.h"
#include "format/reader.h"
#include "format/writer.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> rank_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".rank") != std::string::npos && name.ends_with(".cprof"))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Copies `from` as rank `rank` of pid `pid` into `dir`.
void copy_as_rank(const fs::path& from, const fs::path& dir, int64_t rank, int64_t pid) {
  cprof::format::ResultsWriter w;
  const std::string name =
      "app.bench." + std::to_string(pid) + ".rank" + std::to_string(rank) + ".cprof";
  if (const auto err = w.open((dir / name).string()); !err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    std::exit(2);
  }
  cprof::format::read_results_file(from, [&](cprof::format::Record&& r) {
    if (auto* p = std::get_if<cprof::format::ProcessRecord>(&r)) {
      p->pid = pid;
      p->rank = rank;
    }
    w.add(r);
  });
  w.close();
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"Times causal-report on many rank files made from a real run's.",
               "cprof-bench-rank-files"};
  std::string from;
  std::string work = (fs::temp_directory_path() / "cprof-bench-ranks").string();
  std::vector<int> counts{64, 128, 256, 512, 1024};
  std::vector<std::string> formats{"text", "json"};
  bool keep = false;
  app.add_option("--from", from, "a run's results directory with .rank<N> files")->required();
  app.add_option("--ranks", counts, "rank counts to time")->delimiter(',');
  app.add_option("--work", work, "where to write the directories");
  app.add_option("--formats", formats, "report formats to time")->delimiter(',');
  app.add_flag("--keep", keep, "keep the generated directories");
  CLI11_PARSE(app, argc, argv);
  const auto sources = rank_files(from);
  if (sources.empty()) {
    std::fprintf(stderr, "cprof-bench-rank-files: no .rank<N> files in %s\n", from.c_str());
    return 2;
  }
  std::printf("from %zu rank files of %s\n", sources.size(), from.c_str());
  struct Row {
    int ranks;
    std::string format;
    cprof::bench::Timed t;
  };
  std::vector<Row> rows;
  for (const int n : counts) {
    const fs::path dir = fs::path(work) / std::to_string(n);
    fs::remove_all(dir);
    fs::create_directories(dir);
    uintmax_t bytes = 0;
    for (int r = 0; r < n; ++r) {
      copy_as_rank(sources[static_cast<size_t>(r) % sources.size()], dir, r, 100000 + r);
    }
    for (const auto& e : fs::directory_iterator(dir)) bytes += e.file_size();
    for (const auto& format : formats) {
      const std::string out = (fs::path(work) / ("out." + format)).string();
      const auto t = cprof::bench::run_report({CAUSAL_REPORT_BIN, dir.string(), "--quiet", "--by",
                                               "rank", "--format", format, "-o", out});
      std::printf(
          "%5d ranks (%6.1f MB)  --format %-5s  wall %6.2f s  cpu %6.2f s  peak RSS %6.0f MB%s\n",
          n, static_cast<double>(bytes) / 1e6, format.c_str(), t.seconds, t.cpu_seconds,
          static_cast<double>(t.peak_rss_kb) / 1024.0, t.status != 0 ? "  FAILED" : "");
      rows.push_back({n, format, t});
    }
    if (!keep) fs::remove_all(dir);
  }
  // Growth from the smallest to the largest count: an exponent of 1 is linear.
  for (const auto& format : formats) {
    const Row* lo = nullptr;
    const Row* hi = nullptr;
    for (const auto& r : rows) {
      if (r.format != format) continue;
      if (lo == nullptr || r.ranks < lo->ranks) lo = &r;
      if (hi == nullptr || r.ranks > hi->ranks) hi = &r;
    }
    if (lo == nullptr || lo == hi) continue;
    const double x = std::log(static_cast<double>(hi->ranks) / lo->ranks);
    std::printf("--format %-5s %d -> %d ranks: time x%.2f (exponent %.2f), peak RSS x%.2f\n",
                format.c_str(), lo->ranks, hi->ranks, hi->t.seconds / lo->t.seconds,
                std::log(hi->t.seconds / lo->t.seconds) / x,
                static_cast<double>(hi->t.peak_rss_kb) / static_cast<double>(lo->t.peak_rss_kb));
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cprof-bench-rank-files: %s\n", e.what());
    return 1;
  }
}
