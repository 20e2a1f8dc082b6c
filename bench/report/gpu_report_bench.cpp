// causal-report's GPU part on a launch-heavy run: writes KERNELS kernel records (and one
// copy per 100 kernels) over PROCESSES GPU files sharing one device, each kernel launched
// from one of 1,000 distinct launch stacks of 20 frames, then times loading, building
// (symbolization with --symbols none, the GPU profile) and rendering text, json and
// chrome, in this process.
//
//   cprof-bench-report-gpu [KERNELS] [PROCESSES]      (default 1000000 8)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "format/writer.h"
#include "report/render/render.h"
#include "report/report.h"
#include "report/symbols/symbol_source.h"

namespace {

constexpr uint64_t kBias = 0x555555550000;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void write_process(const std::filesystem::path& file, int64_t pid, uint64_t kernels) {
  cprof::format::ResultsWriter w;
  if (const auto e = w.open(file.string()); !e.empty()) {
    std::fprintf(stderr, "%s\n", e.c_str());
    std::exit(1);
  }
  w.add(cprof::format::ProcessRecord{.pid = pid, .hostname = "bench", .executable = "/bench/app",
                                     .start_realtime_ns = 1'700'000'000'000'000'000,
                                     .start_monotonic_ns = 1'000'000'000, .engine = "hsa"});
  w.add(cprof::format::ModuleRecord{.path = "/bench/app", .load_bias = kBias,
                                    .start = kBias + 0x1000, .end = kBias + 0x1000000});
  w.add(cprof::format::GpuDeviceRecord{.id = 1, .name = "gfx90a"});
  uint64_t t = 2'000'000'000 + static_cast<uint64_t>(pid) * 1000;
  for (uint64_t i = 0; i < kernels; ++i) {
    cprof::format::KernelRecord k;
    const uint64_t site = (i * 2654435761u) % 1000;
    k.time_ns = t;
    k.start_ns = t + 5000;
    k.end_ns = k.start_ns + 1000 + (i % 7) * 3000;
    t = k.end_ns + 2000 + (i % 13) * 5000;
    k.device_id = 1;
    k.queue_id = i % 4;
    k.name = "kernel_" + std::to_string(site % 50);
    k.dispatch_id = i;
    k.grid[0] = 65536;
    k.workgroup[0] = 256;
    k.tid = pid * 10 + static_cast<int64_t>(i % 4);
    for (uint64_t d = 0; d < 20; ++d) k.frames.push_back(kBias + 0x2000 + site * 0x100 + d * 0x10000 + 5);
    k.correlation_id = i;
    w.add(k);
    if (i % 100 == 0) {
      w.add(cprof::format::CopyRecord{.time_ns = t, .start_ns = t + 100, .end_ns = t + 1100,
                                      .bytes = 1 << 20,
                                      .direction = cprof::format::CopyDirection::host_to_device,
                                      .dst_device_id = 1, .tid = k.tid, .frames = k.frames,
                                      .correlation_id = i});
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  using cprof::report::RenderOptions;
  const uint64_t kernels = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  const int processes = argc > 2 ? std::atoi(argv[2]) : 8;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cprof-gpu-bench." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (int p = 0; p < processes; ++p) {
    write_process(dir / ("app.bench." + std::to_string(100 + p) + ".gpu.cprof"), 100 + p,
                  kernels / static_cast<uint64_t>(processes));
  }
  auto t0 = std::chrono::steady_clock::now();
  double c0 = cpu_seconds();
  auto loaded = cprof::report::load_results(cprof::report::find_results_files(dir));
  const double load_s = seconds_since(t0), load_cpu = cpu_seconds() - c0;
  t0 = std::chrono::steady_clock::now();
  c0 = cpu_seconds();
  const auto source = cprof::report::make_address_only_source();
  const auto report = cprof::report::build_report(std::move(loaded), *source, {.breakdown = false});
  const double build_s = seconds_since(t0), build_cpu = cpu_seconds() - c0;
  std::printf("%llu kernels, %llu copies, %d processes: load %.2f s (%.2f CPU), build %.2f s "
              "(%.2f CPU)\n",
              static_cast<unsigned long long>(report.gpu.kernels),
              static_cast<unsigned long long>(report.gpu.copies), processes, load_s, load_cpu,
              build_s, build_cpu);
  for (const char* format : {"text", "json", "chrome"}) {
    t0 = std::chrono::steady_clock::now();
    c0 = cpu_seconds();
    const std::string out = std::string(format) == "text"   ? render_text(report, RenderOptions{})
                            : std::string(format) == "json" ? render_json(report, {.top = 0})
                                                            : render_chrome(report);
    std::printf("  render %-6s %.2f s (%.2f CPU), %.1f MB\n", format, seconds_since(t0),
                cpu_seconds() - c0, static_cast<double>(out.size()) / 1e6);
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("peak RSS %.0f MB\n", static_cast<double>(u.ru_maxrss) / 1e3);
  std::filesystem::remove_all(dir);
  return 0;
}
