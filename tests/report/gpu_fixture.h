#pragma once
// A process that ran GPU work, as `sample-run --gpu` leaves it: the sampler's file and the
// GPU hooks' companion file (engine "hsa", same pid) with a GPU runtime module, two
// devices, seven kernels from two launching functions and three copies, at known times:
//
//   kernel   name                  device time (us after kT0)  queue  launched from
//   k1       square(float*, int)   [0, 100)                    1      runtime > launch_a > main
//   k2       square(float*, int)   [105, 200)                  1      runtime > launch_a > main
//   k3       scale                 [150, 250)                  2      runtime > launch_b > main
//   k4       square(float*, int)   [265, 300)                  1      launch_a (return address
//                                                                     at its end) > main
//   k5       (no name)             [1300, 1400)                1      (no stack)
//   k6       scale                 [201400, 201500)            2      runtime > launch_b > main
//   k7       scale                 untimed                     2      runtime > launch_b > main
//
// Busy 480 us of a 201500 us span; idle gaps 5, 15, 1000 and 200000 us (buckets 0, 1, 5,
// 7). Copies: two host-to-device of 1 MB in 100 us each, one device-to-host untimed.

#include <filesystem>
#include <string>
#include <vector>

#include "format/writer.h"
#include "report/load/loader.h"
#include "report/report.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"

namespace cprof::report::testing {

inline constexpr uint64_t kT0 = 2'000'000'000;
inline constexpr uint64_t kUs = 1000;
inline constexpr uint64_t kRuntimeBias = 0x7f0000000000;
inline constexpr const char* kRuntimePath = "/opt/rocm/lib/libhsa-runtime64.so.1";

// The GPU hooks' file of process `pid`, with the app's and the runtime's modules.
class GpuFileWriter {
 public:
  GpuFileWriter(const std::filesystem::path& file, int64_t pid, const std::string& engine = "hsa") {
    error_ = w_.open(file.string());
    w_.add(format::ProcessRecord{.pid = pid,
                                 .ppid = 1,
                                 .hostname = "testhost",
                                 .executable = "/usr/bin/app",
                                 .command_line = {"app"},
                                 .start_realtime_ns = 1'700'000'000'000'000'000 + 500,
                                 .start_monotonic_ns = 1'000'000'500,
                                 .engine = engine});
    w_.add(format::ModuleRecord{.id = 0,
                                .path = "/usr/bin/app",
                                .build_id = "abcdef",
                                .load_bias = kLoadBias,
                                .start = kModuleStart,
                                .end = kModuleEnd,
                                .time_ns = 1'000'000'000});
    w_.add(format::ModuleRecord{.id = 1,
                                .path = kRuntimePath,
                                .load_bias = kRuntimeBias,
                                .start = kRuntimeBias + 0x1000,
                                .end = kRuntimeBias + 0x100000,
                                .time_ns = 1'000'000'400});
  }
  const std::string& error() const { return error_; }

  void device(uint32_t id, const std::string& name, format::GpuDeviceKind kind) {
    w_.add(format::GpuDeviceRecord{.id = id, .name = name, .kind = kind});
  }
  // start/end in us after kT0 (end < start: untimed, both 0); frames: "r" + ELF address of
  // the runtime, else app ELF addresses (return addresses).
  void kernel(const std::string& name, uint64_t start_us, uint64_t end_us, uint64_t queue,
              std::vector<uint64_t> app_frames, bool through_runtime, int64_t tid = 1,
              uint32_t device = 1) {
    std::vector<uint64_t> frames;
    if (through_runtime && !app_frames.empty()) frames.push_back(kRuntimeBias + 0x5001);
    for (auto f : app_frames) frames.push_back(f + kLoadBias);
    format::KernelRecord k;
    k.time_ns = start_us == end_us ? kT0 - kUs : kT0 + start_us * kUs - 10 * kUs;
    if (end_us > start_us) {
      k.start_ns = kT0 + start_us * kUs;
      k.end_ns = kT0 + end_us * kUs;
    }
    k.device_id = device;
    k.queue_id = queue;
    k.name = name;
    k.dispatch_id = ++dispatch_;
    k.grid[0] = 1024;
    k.workgroup[0] = 256;
    k.tid = tid;
    k.frames = std::move(frames);
    k.correlation_id = dispatch_;
    w_.add(k);
  }
  void copy(format::CopyDirection d, uint64_t bytes, uint64_t start_us, uint64_t end_us) {
    format::CopyRecord c;
    c.time_ns = kT0 + start_us * kUs - kUs;
    if (end_us > start_us) {
      c.start_ns = kT0 + start_us * kUs;
      c.end_ns = kT0 + end_us * kUs;
    }
    c.bytes = bytes;
    c.direction = d;
    const bool to_gpu = d == format::CopyDirection::host_to_device;
    c.src_device_id = to_gpu ? 0 : 1;
    c.dst_device_id = to_gpu ? 1 : 0;
    c.tid = 1;
    c.frames = {0x1011 + kLoadBias, 0x3011 + kLoadBias};
    c.correlation_id = ++dispatch_;
    w_.add(c);
  }
  // A gpu_trace_window record, in us after kT0.
  void window(uint64_t start_us, uint64_t end_us, double duty = 0.1, uint64_t period_us = 100'000) {
    w_.add(format::GpuTraceWindowRecord{.start_ns = kT0 + start_us * kUs,
                                        .end_ns = kT0 + end_us * kUs,
                                        .duty = duty,
                                        .period_ns = period_us * kUs});
  }
  void flush() { w_.flush(); }
  void add(const format::Record& r) { w_.add(r); }

 private:
  format::ResultsWriter w_;
  std::string error_;
  uint64_t dispatch_ = 0;
};

inline void write_gpu_results(const std::filesystem::path& dir) {
  {
    ProcessWriter cpu(dir / "app.testhost.300.cprof", 300);
    cpu.thread(1, "main");
    for (int i = 0; i < 4; ++i) cpu.sample(1, {0x1010, 0x3011});
  }
  GpuFileWriter g(dir / "app.testhost.300.gpu.cprof", 300);
  g.device(0, "cpu-agent", format::GpuDeviceKind::cpu);
  g.device(1, "gfx90a", format::GpuDeviceKind::gpu);
  const std::vector<uint64_t> a{0x1011, 0x3011}, b{0x2011, 0x3011};
  g.kernel("square(float*, int)", 0, 100, 1, a, true);
  g.kernel("square(float*, int)", 105, 200, 1, a, true);
  g.kernel("scale", 150, 250, 2, b, true);
  g.kernel("square(float*, int)", 265, 300, 1, {0x1100, 0x3011}, false);
  g.kernel("", 1300, 1400, 1, {}, false);
  g.kernel("scale", 201400, 201500, 2, b, true);
  g.kernel("scale", 0, 0, 2, b, true);
  g.copy(format::CopyDirection::host_to_device, 1'000'000, 400, 500);
  g.copy(format::CopyDirection::host_to_device, 1'000'000, 600, 700);
  g.copy(format::CopyDirection::device_to_host, 500'000, 0, 0);
}

// A process traced in windows (`--gpu-duty 10`, 100 ms periods), pid 400: windows at
// [0, 10), [130, 140) and [250, 260) ms after kT0, its last record at 300 ms (a thread's
// end): traced 30 of 300 ms. Kernels on gfx90a, queue 1 (us after kT0):
//
//   square  [1000, 3000)      window 1
//   square  [3500, 4000)      window 1: a 500 us gap
//   scale   [9000, 12000)     window 1 until 10000: a 5000 us gap; 1000 us busy in it
//   scale   [131000, 131020)  window 2 (the idle time before it is cut by the window)
//
// and a 1 MB host-to-device copy in window 2. The third window saw nothing. Busy 3520 us
// of the 30000 us traced (not 1000 to 131020 us); gaps 500 and 5000 us (buckets 4, 5).
inline void write_windowed_gpu_results(const std::filesystem::path& dir) {
  {
    ProcessWriter cpu(dir / "app.testhost.400.cprof", 400);
    cpu.thread(1, "main");
    for (int i = 0; i < 4; ++i) cpu.sample(1, {0x1010, 0x3011});
    cpu.add(format::ThreadEndRecord{.tid = 1, .time_ns = kT0 + 300'000 * kUs});
  }
  GpuFileWriter g(dir / "app.testhost.400.gpu.cprof", 400);
  g.device(0, "cpu-agent", format::GpuDeviceKind::cpu);
  g.device(1, "gfx90a", format::GpuDeviceKind::gpu);
  const std::vector<uint64_t> a{0x1011, 0x3011}, b{0x2011, 0x3011};
  g.kernel("square(float*, int)", 1000, 3000, 1, a, true);
  g.kernel("square(float*, int)", 3500, 4000, 1, a, true);
  g.kernel("scale", 9000, 12000, 1, b, true);
  g.window(0, 10'000);
  g.kernel("scale", 131000, 131020, 1, b, true);
  g.copy(format::CopyDirection::host_to_device, 1'000'000, 135000, 135100);
  g.window(130'000, 140'000);
  g.window(250'000, 260'000);
}

inline void add_gpu_symbols(FakeSymbols& symbols) {
  symbols.add(0x1000, 0x1100, {{.function = "launch_a", .file = "/src/a.cpp", .line = 10}});
  symbols.add(0x2000, 0x2100, {{.function = "launch_b", .file = "/src/a.cpp", .line = 20}});
  symbols.add(0x3000, 0x3100, {{.function = "main", .file = "/src/m.cpp", .line = 30}});
}

inline Report windowed_gpu_report(const std::filesystem::path& dir) {
  write_windowed_gpu_results(dir);
  FakeSymbols symbols;
  add_gpu_symbols(symbols);
  return build_report(load_results(find_results_files(dir)), symbols, {.call_tree = true});
}

inline Report gpu_report(const std::filesystem::path& dir, bool write = true) {
  if (write) write_gpu_results(dir);
  FakeSymbols symbols;
  add_gpu_symbols(symbols);
  return build_report(load_results(find_results_files(dir)), symbols, {.call_tree = true});
}

}  // namespace cprof::report::testing
