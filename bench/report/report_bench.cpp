// causal-report at scale: writes a results directory of N samples (default 10 million)
// over T threads (64) and P processes (8), then runs the real causal-report binary on
// it for the text and the JSON report (or the --formats given) and prints wall time,
// microseconds per sample and peak RSS. Targets (issue 5): <= 1 us per sample on 2 cores,
// peak RSS < 2 GB.
//
//   cprof-bench-report [--samples N] [--threads T] [--processes P] [--dir DIR] [--keep]
//                      [--formats text,json,html,folded,speedscope,pprof,chrome,sqlite,coz]
//
// Stacks are random walks down a synthetic call graph of one module: 20,000 distinct
// stacks per process (depth 8..40), drawn with a skewed distribution so a few are hot,
// as in real programs. The module does not exist on disk, so the report runs with
// --symbols none: symbolization costs per distinct address, not per sample, and is
// measured by bench/symbolize.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/report/timed_run.h"
#include "format/writer.h"

namespace {

namespace fs = std::filesystem;
using cprof::bench::run_report;
using cprof::format::ModuleRecord;
using cprof::format::ProcessRecord;
using cprof::format::ResultsWriter;
using cprof::format::SampleRecord;
using cprof::format::ThreadRecord;

constexpr uint64_t kBias = 0x555555554000;
constexpr uint64_t kFunctions = 3000;
constexpr uint64_t kFunctionBytes = 0x400;

void write_process(const fs::path& dir, int index, uint64_t samples, int threads,
                   uint32_t distinct_stacks) {
  const int64_t pid = 10'000 + index;
  ResultsWriter w;
  const auto err = w.open((dir / ("app.bench." + std::to_string(pid) + ".rank" +
                                  std::to_string(index) + ".cprof"))
                              .string());
  if (!err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    std::exit(2);
  }
  const uint64_t start = 1'000'000'000;
  w.add(ProcessRecord{.pid = pid, .ppid = 1, .rank = index, .hostname = "bench",
                      .executable = "/bench/app", .start_monotonic_ns = start,
                      .engine = "perf_event", .clock = "cpu", .unwinder = "libunwind",
                      .frequency_hz = 1000, .period_ns = 1'000'000});
  w.add(ModuleRecord{.id = 0, .path = "/bench/app", .build_id = "00", .load_bias = kBias,
                     .start = kBias + 0x1000, .end = kBias + 0x1000 + kFunctions * kFunctionBytes});
  for (int t = 0; t < threads; ++t) {
    w.add(ThreadRecord{.tid = pid * 100 + t, .name = "worker", .time_ns = start});
  }
  // Distinct stacks: outermost main, then random callees; PC inside the last function.
  std::mt19937_64 rng(static_cast<uint64_t>(index) * 7919 + 1);
  std::vector<std::vector<uint64_t>> stacks(distinct_stacks);
  for (auto& s : stacks) {
    const int depth = 8 + static_cast<int>(rng() % 33);
    std::vector<uint64_t> callers;
    uint64_t fn = 0;
    for (int d = 0; d < depth; ++d) {
      callers.push_back(kBias + 0x1000 + fn * kFunctionBytes + 0x10 + (rng() % 8) * 0x20);
      fn = (fn * 31 + 1 + rng() % 40) % kFunctions;  // a sparse, repeatable call graph
    }
    s.assign(callers.rbegin(), callers.rend());  // [0] = innermost
  }
  // Skewed choice: the square of a uniform draw favours low indices.
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SampleRecord r;
  for (uint64_t i = 0; i < samples; ++i) {
    const double x = u(rng);
    const auto& s = stacks[static_cast<size_t>(x * x * x * (distinct_stacks - 1))];
    r.tid = pid * 100 + static_cast<int64_t>(i % static_cast<uint64_t>(threads));
    r.time_ns = start + i * 1'000;
    r.weight_ns = 1'000'000 + rng() % 1000;
    r.frames = s;
    w.add(r);
  }
  w.close();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times causal-report on a generated results directory.", "cprof-bench-report"};
  uint64_t samples = 10'000'000;
  int threads = 64;
  int processes = 8;
  uint32_t distinct = 20'000;
  std::string dir = (fs::temp_directory_path() / "cprof-report-bench").string();
  std::string report = CAUSAL_REPORT_BIN;
  bool keep = false;
  std::vector<std::string> formats{"text", "json"};
  app.add_option("--samples", samples, "samples in all");
  app.add_option("--threads", threads, "threads in all, spread over the processes");
  app.add_option("--processes", processes, "processes (one results file each)");
  app.add_option("--distinct-stacks", distinct, "distinct stacks per process");
  app.add_option("--dir", dir, "where to write the results (reused when it holds them)");
  app.add_option("--report", report, "the causal-report binary");
  app.add_flag("--keep", keep, "keep the generated directory");
  app.add_option("--formats", formats,
                 "report formats to time (text json html folded speedscope pprof chrome sqlite coz)")
      ->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  if (processes < 1 || threads < processes) {
    std::fprintf(stderr, "cprof-bench-report: need --processes >= 1 and --threads >= --processes\n");
    return 1;
  }

  const fs::path out(dir);
  fs::remove_all(out);
  fs::create_directories(out);
  const auto gen_begin = std::chrono::steady_clock::now();
  {
    std::vector<std::thread> writers;
    for (int p = 0; p < processes; ++p) {
      writers.emplace_back([&, p] {
        write_process(out, p, samples / processes + (p < static_cast<int>(samples % processes)),
                      threads / processes, distinct);
      });
    }
    for (auto& t : writers) t.join();
  }
  uint64_t bytes = 0;
  for (const auto& e : fs::directory_iterator(out)) bytes += e.file_size();
  std::printf("generated %llu samples, %d threads, %d processes, %.0f MB in %.1f s\n",
              static_cast<unsigned long long>(samples), threads, processes,
              static_cast<double>(bytes) / 1e6,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - gen_begin).count());

  int failures = 0;
  for (const auto& format_name : formats) {
    // Every format writes a file (sqlite needs one); removed after timing.
    const std::string file = dir + ".out";
    const char* format = format_name.c_str();
    const auto t =
        run_report({report, dir, "--symbols", "none", "--quiet", "--format", format, "-o", file});
    fs::remove(file);
    const double us = t.seconds * 1e6 / static_cast<double>(samples);
    std::printf(
        "causal-report --format %-10s  wall %6.2f s  %5.3f us/sample  cpu %6.2f s  peak RSS %5.0f MB"
        "  %s\n",
        format, t.seconds, us, t.cpu_seconds, static_cast<double>(t.peak_rss_kb) / 1024.0,
                t.status != 0 ? "FAILED" : (us <= 1.0 && t.peak_rss_kb < 2L * 1024 * 1024)
                                               ? "within target"
                                               : "OVER TARGET");
    failures += t.status != 0;
  }
  double load[3] = {};
  if (::getloadavg(load, 3) < 1) load[0] = -1;
  std::printf("(%u hardware threads, load average %.1f: wall time includes other users' work)\n",
              std::thread::hardware_concurrency(), load[0]);
  if (!keep) fs::remove_all(out);
  return failures ? 2 : 0;
}
