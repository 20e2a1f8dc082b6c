// libcprof-hsa loaded by the stand-in HSA runtime through OnLoad, as HSA_TOOLS_LIB would
// be, and driven like a program drives the runtime: queues, AQL dispatch packets with the
// program's own completion signals, async copies.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "format/reader.h"
#include "tests/gpu/hsa_standin/standin.h"

using cprof::gpu::standin::dispatch_packet;
using cprof::gpu::standin::FakeKernel;
using cprof::gpu::standin::StandinRuntime;
using cprof::gpu::standin::submit_packet;
namespace fmt = cprof::format;

// The program's launching functions. Exported (dladdr finds them) and never inlined; the
// empty asm after the calls keeps them off tail-call position, so they stay on the stack.
extern "C" __attribute__((noinline)) uint64_t app_launch_kernel(const CoreApiTable* core,
                                                                hsa_queue_t* queue,
                                                                const hsa_kernel_dispatch_packet_t* p) {
  const uint64_t index = submit_packet(*core, queue, *p);
  asm volatile("" ::: "memory");
  return index;
}

extern "C" __attribute__((noinline)) hsa_status_t app_copy(const AmdExtTable* amd, void* dst,
                                                          hsa_agent_t dst_agent, const void* src,
                                                          hsa_agent_t src_agent, size_t size,
                                                          hsa_signal_t done) {
  const hsa_status_t s =
      amd->hsa_amd_memory_async_copy_fn(dst, dst_agent, src, src_agent, size, 0, nullptr, done);
  asm volatile("" ::: "memory");
  return s;
}

namespace {

constexpr uint64_t kSquare = 0xA000;
constexpr uint64_t kScale = 0xB000;
constexpr uint64_t kPlain = 0xC000;
constexpr uint64_t kNsPerTick = 1000000000 / StandinRuntime::kSystemFrequency;

int64_t gettid_() { return static_cast<int64_t>(syscall(SYS_gettid)); }

// True if a frame (a return address) lies inside `fn`.
bool stack_has(const std::vector<uint64_t>& frames, const void* fn) {
  Dl_info info{};
  ElfW(Sym)* sym = nullptr;
  if (dladdr1(fn, &info, reinterpret_cast<void**>(&sym), RTLD_DL_SYMENT) == 0 || sym == nullptr) {
    return false;
  }
  const auto lo = reinterpret_cast<uint64_t>(info.dli_saddr);
  const uint64_t hi = lo + sym->st_size;
  return std::any_of(frames.begin(), frames.end(),
                     [&](uint64_t f) { return f - 1 >= lo && f - 1 < hi; });
}

class HsaTool : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cprof-hsa-test." + std::to_string(getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    setenv("CPROF_OUTPUT_DIR", dir_.c_str(), 1);
    setenv("CPROF_FLUSH_MS", "10", 1);
  }
  void TearDown() override {
    unsetenv("CPROF_GPU_DUTY");
    unsetenv("CPROF_GPU_PERIOD_MS");
    std::filesystem::remove_all(dir_);
  }

  void load(StandinRuntime& rt) {
    std::string error;
    ASSERT_TRUE(rt.load_tool(CPROF_HSA_TOOL_PATH, error)) << error;
  }

  hsa_queue_t* make_queue(StandinRuntime& rt) {
    hsa_queue_t* q = nullptr;
    EXPECT_EQ(rt.core().hsa_queue_create_fn(rt.gpu_agent(), 64, HSA_QUEUE_TYPE_MULTI, nullptr,
                                            nullptr, 0, 0, &q),
              HSA_STATUS_SUCCESS);
    return q;
  }

  hsa_signal_t make_signal(StandinRuntime& rt, hsa_signal_value_t v) {
    hsa_signal_t s{};
    EXPECT_EQ(rt.core().hsa_signal_create_fn(v, 0, nullptr, &s), HSA_STATUS_SUCCESS);
    return s;
  }

  // Every record of the one GPU results file in the directory.
  std::vector<fmt::Record> results() {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) files.push_back(e.path());
    EXPECT_EQ(files.size(), 1u);
    std::vector<fmt::Record> out;
    if (files.empty()) return out;
    EXPECT_NE(files[0].filename().string().find(".gpu.cprof"), std::string::npos) << files[0];
    const auto summary =
        fmt::read_results_file(files[0], [&](fmt::Record&& r) { out.push_back(std::move(r)); });
    EXPECT_TRUE(summary.issues.empty());
    EXPECT_EQ(summary.unknown_records, 0u);
    return out;
  }

  template <typename T>
  static std::vector<T> only(const std::vector<fmt::Record>& records) {
    std::vector<T> out;
    for (const auto& r : records) {
      if (const auto* x = std::get_if<T>(&r)) out.push_back(*x);
    }
    return out;
  }

  std::filesystem::path dir_;
};

TEST(HsaStandin, RunsProgramsWithoutATool) {
  StandinRuntime rt;
  hsa_queue_t* q = nullptr;
  ASSERT_EQ(rt.core().hsa_queue_create_fn(rt.gpu_agent(), 16, HSA_QUEUE_TYPE_MULTI, nullptr,
                                          nullptr, 0, 0, &q),
            HSA_STATUS_SUCCESS);
  hsa_signal_t done{};
  rt.core().hsa_signal_create_fn(1, 0, nullptr, &done);
  submit_packet(rt.core(), q, dispatch_packet(kSquare, 64, 64, done));
  EXPECT_EQ(rt.core().hsa_signal_wait_scacquire_fn(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                                   HSA_WAIT_STATE_BLOCKED),
            0);
  EXPECT_EQ(rt.intercept_queues(), 0u);
  rt.wait_idle();
  rt.core().hsa_signal_destroy_fn(done);
  rt.core().hsa_queue_destroy_fn(q);
}

TEST_F(HsaTool, KernelsAreNamedTimedAndAttributedToTheirLauncher) {
  StandinRuntime rt;
  load(rt);
  const hsa_executable_t exe = rt.create_executable({{"_Z6squarePfi.kd", kSquare, 2500},
                                                     {"_ZN2ns5scaleEPdd.kd", kScale, 100000},
                                                     {"plain_c_kernel.kd", kPlain, 7},
                                                     {"some_global", 0, 0}});
  ASSERT_EQ(rt.core().hsa_executable_freeze_fn(exe, ""), HSA_STATUS_SUCCESS);
  hsa_queue_t* q = make_queue(rt);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(rt.intercept_queues(), 1u);

  // The program's own signals and its own async handler on one of them.
  hsa_signal_t sig_square = make_signal(rt, 1);
  hsa_signal_t sig_scale = make_signal(rt, 1);
  std::atomic<int> program_handler_calls{0};
  ASSERT_EQ(rt.amd().hsa_amd_signal_async_handler_fn(
                sig_scale, HSA_SIGNAL_CONDITION_LT, 1,
                [](hsa_signal_value_t, void* arg) {
                  ++*static_cast<std::atomic<int>*>(arg);
                  return false;
                },
                &program_handler_calls),
            HSA_STATUS_SUCCESS);

  const auto p1 = dispatch_packet(kSquare, 1024, 256, sig_square);
  auto p2 = dispatch_packet(kScale, 4096, 64, sig_scale);
  p2.grid_size_y = 3;
  const auto p3 = dispatch_packet(kPlain, 64, 64, hsa_signal_t{0});  // no completion signal
  const uint64_t i1 = app_launch_kernel(&rt.core(), q, &p1);
  const uint64_t i2 = app_launch_kernel(&rt.core(), q, &p2);
  const uint64_t i3 = app_launch_kernel(&rt.core(), q, &p3);

  // The program's signals fire as if no tool were there.
  EXPECT_EQ(rt.core().hsa_signal_wait_scacquire_fn(sig_square, HSA_SIGNAL_CONDITION_EQ, 0,
                                                   UINT64_MAX, HSA_WAIT_STATE_BLOCKED),
            0);
  EXPECT_EQ(rt.core().hsa_signal_wait_scacquire_fn(sig_scale, HSA_SIGNAL_CONDITION_EQ, 0,
                                                   UINT64_MAX, HSA_WAIT_STATE_BLOCKED),
            0);
  rt.wait_idle();
  EXPECT_EQ(program_handler_calls.load(), 1);
  EXPECT_EQ(rt.core().hsa_signal_load_scacquire_fn(sig_square), 0);
  EXPECT_EQ(rt.packets_executed(), 3u);
  rt.unload_tool();

  const auto records = results();
  const auto process = only<fmt::ProcessRecord>(records);
  ASSERT_EQ(process.size(), 1u);
  EXPECT_EQ(process[0].engine, "hsa");
  EXPECT_EQ(process[0].pid, getpid());
  EXPECT_FALSE(only<fmt::ModuleRecord>(records).empty());
  const auto devices = only<fmt::GpuDeviceRecord>(records);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].name, "gfx90a");
  EXPECT_EQ(devices[0].kind, fmt::GpuDeviceKind::gpu);

  auto kernels = only<fmt::KernelRecord>(records);
  ASSERT_EQ(kernels.size(), 3u);
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.dispatch_id < b.dispatch_id; });
  EXPECT_EQ(kernels[0].name, "square(float*, int)");
  EXPECT_EQ(kernels[1].name, "ns::scale(double*, double)");
  EXPECT_EQ(kernels[2].name, "plain_c_kernel");
  const uint64_t ticks[] = {2500, 100000, 7};
  const uint64_t index[] = {i1, i2, i3};
  std::set<uint64_t> correlation;
  for (size_t i = 0; i < 3; ++i) {
    const auto& k = kernels[i];
    SCOPED_TRACE(k.name);
    EXPECT_EQ(k.dispatch_id, index[i]);
    EXPECT_NEAR(static_cast<double>(k.end_ns - k.start_ns),
                static_cast<double>(ticks[i] * kNsPerTick), 1.0);
    // Device times are converted to the host clock: the kernel starts after it was
    // submitted (within the clock map's precision) and not long after.
    EXPECT_GE(k.start_ns + 20000, k.time_ns);
    EXPECT_LT(k.start_ns, k.time_ns + 5000000000ull);
    EXPECT_EQ(k.device_id, devices[0].id);
    EXPECT_EQ(k.queue_id, q->id);
    EXPECT_EQ(k.tid, gettid_());
    EXPECT_TRUE(stack_has(k.frames, reinterpret_cast<const void*>(&app_launch_kernel)))
        << k.frames.size() << " frames";
    correlation.insert(k.correlation_id);
  }
  EXPECT_EQ(correlation.size(), 3u);
  EXPECT_EQ(kernels[0].grid[0], 1024u);
  EXPECT_EQ(kernels[0].workgroup[0], 256u);
  EXPECT_EQ(kernels[1].grid[1], 3u);
  EXPECT_EQ(kernels[1].workgroup[0], 64u);
  // The device runs one at a time, in order.
  EXPECT_LE(kernels[0].end_ns, kernels[1].start_ns + 1);

  rt.core().hsa_executable_destroy_fn(exe);
  rt.core().hsa_signal_destroy_fn(sig_square);
  rt.core().hsa_signal_destroy_fn(sig_scale);
}

TEST_F(HsaTool, ManyPacketsInOneSubmissionAndSignalsAreReused) {
  StandinRuntime rt;
  load(rt);
  const hsa_executable_t exe = rt.create_executable({{"_Z6squarePfi.kd", kSquare, 10}});
  rt.core().hsa_executable_freeze_fn(exe, nullptr);
  hsa_queue_t* q = make_queue(rt);
  ASSERT_NE(q, nullptr);
  // A program counting several dispatches down on one signal: 8 packets, one doorbell.
  hsa_signal_t all_done = make_signal(rt, 8);
  const uint64_t first = rt.core().hsa_queue_add_write_index_screlease_fn(q, 8);
  auto* ring = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address);
  for (uint64_t i = 0; i < 8; ++i) {
    const auto p = dispatch_packet(kSquare, 64, 64, all_done);
    auto* slot = ring + (first + i) % q->size;
    *slot = p;
  }
  rt.core().hsa_signal_store_screlease_fn(q->doorbell_signal,
                                          static_cast<hsa_signal_value_t>(first + 7));
  EXPECT_EQ(rt.core().hsa_signal_wait_scacquire_fn(all_done, HSA_SIGNAL_CONDITION_EQ, 0,
                                                   UINT64_MAX, HSA_WAIT_STATE_BLOCKED),
            0);
  rt.wait_idle();
  const uint64_t live_after_first = rt.live_signals();
  // 200 more, one at a time: the tool's signals come back to its pool.
  hsa_signal_t one = make_signal(rt, 1);
  for (int i = 0; i < 200; ++i) {
    rt.core().hsa_signal_store_screlease_fn(one, 1);
    const auto p = dispatch_packet(kSquare, 64, 64, one);
    app_launch_kernel(&rt.core(), q, &p);
    ASSERT_EQ(rt.core().hsa_signal_wait_scacquire_fn(one, HSA_SIGNAL_CONDITION_EQ, 0,
                                                     UINT64_MAX, HSA_WAIT_STATE_BLOCKED),
              0);
  }
  rt.wait_idle();
  EXPECT_LE(rt.live_signals(), live_after_first + 2);
  rt.unload_tool();
  const auto kernels = only<fmt::KernelRecord>(results());
  ASSERT_EQ(kernels.size(), 208u);
  std::set<uint64_t> ids;
  for (const auto& k : kernels) {
    EXPECT_EQ(k.name, "square(float*, int)");
    ids.insert(k.dispatch_id);
  }
  EXPECT_EQ(ids.size(), 208u);
}

TEST_F(HsaTool, CopiesHaveDirectionSizeAndTime) {
  StandinRuntime rt;
  load(rt);
  std::vector<char> host(1 << 20, 'h'), device(1 << 20, 'd'), device2(1 << 20, 'e'),
      back(4096, 0);
  hsa_signal_t s1 = make_signal(rt, 1), s2 = make_signal(rt, 1), s3 = make_signal(rt, 1);
  const hsa_agent_t cpu = rt.cpu_agent(), gpu = rt.gpu_agent();
  ASSERT_EQ(app_copy(&rt.amd(), device.data(), gpu, host.data(), cpu, host.size(), s1),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(app_copy(&rt.amd(), back.data(), cpu, device.data(), gpu, back.size(), s2),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(app_copy(&rt.amd(), device2.data(), gpu, device.data(), gpu, 100, s3),
            HSA_STATUS_SUCCESS);
  for (hsa_signal_t s : {s1, s2, s3}) {
    EXPECT_EQ(rt.core().hsa_signal_wait_scacquire_fn(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                                     HSA_WAIT_STATE_BLOCKED),
              0);
  }
  EXPECT_EQ(back[0], 'h');  // the copies really happened, in order
  EXPECT_EQ(device2[99], 'h');
  rt.wait_idle();
  rt.unload_tool();

  const auto records = results();
  std::map<uint32_t, fmt::GpuDeviceKind> kinds;
  for (const auto& d : only<fmt::GpuDeviceRecord>(records)) kinds[d.id] = d.kind;
  EXPECT_EQ(kinds.size(), 2u);
  auto copies = only<fmt::CopyRecord>(records);
  ASSERT_EQ(copies.size(), 3u);
  std::sort(copies.begin(), copies.end(),
            [](const auto& a, const auto& b) { return a.correlation_id < b.correlation_id; });
  EXPECT_EQ(copies[0].direction, fmt::CopyDirection::host_to_device);
  EXPECT_EQ(copies[0].bytes, 1u << 20);
  EXPECT_EQ(copies[1].direction, fmt::CopyDirection::device_to_host);
  EXPECT_EQ(copies[1].bytes, 4096u);
  EXPECT_EQ(copies[2].direction, fmt::CopyDirection::device_to_device);
  EXPECT_EQ(copies[2].bytes, 100u);
  EXPECT_EQ(kinds[copies[0].src_device_id], fmt::GpuDeviceKind::cpu);
  EXPECT_EQ(kinds[copies[0].dst_device_id], fmt::GpuDeviceKind::gpu);
  for (const auto& c : copies) {
    const uint64_t ticks = std::max<uint64_t>(1, c.bytes / StandinRuntime::kCopyBytesPerTick);
    EXPECT_NEAR(static_cast<double>(c.end_ns - c.start_ns),
                static_cast<double>(ticks * kNsPerTick), 1.0);
    EXPECT_EQ(c.tid, gettid_());
    EXPECT_TRUE(stack_has(c.frames, reinterpret_cast<const void*>(&app_copy)));
  }
  for (hsa_signal_t s : {s1, s2, s3}) rt.core().hsa_signal_destroy_fn(s);
}

// --gpu-duty: the tool traces only inside windows (30% of every 20 ms here). Between
// them dispatches and copies pass through untouched, and the program's signals fire either
// way; every traced kernel was submitted inside a window the file records.
TEST_F(HsaTool, TraceWindowsTraceOnlyInsideThemAndForwardEverything) {
  setenv("CPROF_GPU_DUTY", "30", 1);
  setenv("CPROF_GPU_PERIOD_MS", "20", 1);
  StandinRuntime rt;
  load(rt);
  const hsa_executable_t exe = rt.create_executable({{"_Z6squarePfi.kd", kSquare, 10}});
  rt.core().hsa_executable_freeze_fn(exe, nullptr);
  hsa_queue_t* q = make_queue(rt);
  ASSERT_NE(q, nullptr);
  std::vector<char> host(4096, 'h'), device(4096, 'd');
  hsa_signal_t one = make_signal(rt, 1);
  uint64_t dispatched = 0, copied = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
  while (std::chrono::steady_clock::now() < until) {
    rt.core().hsa_signal_store_screlease_fn(one, 1);
    const auto p = dispatch_packet(kSquare, 64, 64, one);
    app_launch_kernel(&rt.core(), q, &p);
    ASSERT_EQ(rt.core().hsa_signal_wait_scacquire_fn(one, HSA_SIGNAL_CONDITION_EQ, 0,
                                                     UINT64_MAX, HSA_WAIT_STATE_BLOCKED),
              0);
    ++dispatched;
    if (dispatched % 16 == 0) {
      rt.core().hsa_signal_store_screlease_fn(one, 1);
      ASSERT_EQ(app_copy(&rt.amd(), device.data(), rt.gpu_agent(), host.data(), rt.cpu_agent(),
                         host.size(), one),
                HSA_STATUS_SUCCESS);
      ASSERT_EQ(rt.core().hsa_signal_wait_scacquire_fn(one, HSA_SIGNAL_CONDITION_EQ, 0,
                                                       UINT64_MAX, HSA_WAIT_STATE_BLOCKED),
                0);
      ++copied;
    }
  }
  rt.wait_idle();
  EXPECT_EQ(rt.packets_executed(), dispatched + copied);  // the stand-in counts copies too
  rt.unload_tool();

  const auto records = results();
  const auto windows = only<fmt::GpuTraceWindowRecord>(records);
  // 400 ms of 20 ms periods: about 20 windows (fewer when this machine is slow).
  ASSERT_GE(windows.size(), 5u);
  EXPECT_LE(windows.size(), 22u);
  for (size_t i = 0; i < windows.size(); ++i) {
    const auto& w = windows[i];
    EXPECT_EQ(w.duty, 0.3);
    EXPECT_EQ(w.period_ns, 20'000'000u);
    EXPECT_LE(w.start_ns, w.end_ns);
    if (i > 0) {
      EXPECT_GE(w.start_ns, windows[i - 1].end_ns) << "windows overlap";
    }
  }
  // The traced share of the run: 30% planned, far from all of it.
  const uint64_t run = windows.back().end_ns - windows.front().start_ns;
  uint64_t traced = 0;
  for (const auto& w : windows) traced += w.end_ns - w.start_ns;
  EXPECT_GT(traced, run / 10);
  EXPECT_LT(traced, run * 7 / 10);

  const auto kernels = only<fmt::KernelRecord>(records);
  const auto copies = only<fmt::CopyRecord>(records);
  EXPECT_GT(kernels.size(), 0u);
  EXPECT_LT(kernels.size(), dispatched * 8 / 10);
  EXPECT_LT(copies.size(), copied);
  const auto in_a_window = [&](uint64_t t) {
    return std::any_of(windows.begin(), windows.end(),
                       [&](const auto& w) { return t >= w.start_ns && t <= w.end_ns; });
  };
  // A submission that read the switch, was preempted and only then read the clock can
  // fall just outside; nearly all must be inside.
  size_t inside = 0;
  for (const auto& k : kernels) inside += in_a_window(k.time_ns) ? 1 : 0;
  EXPECT_GE(inside * 100, kernels.size() * 98) << inside << " of " << kernels.size();
  // What passed between the windows is counted: with what was traced, every submission.
  const auto messages = only<fmt::MessageRecord>(records);
  ASSERT_EQ(messages.size(), 1u);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      messages[0].text, m,
      std::regex("between trace windows ([0-9]+) AQL packets and ([0-9]+) async copies")))
      << messages[0].text;
  EXPECT_EQ(kernels.size() + std::stoull(m[1]), dispatched);
  EXPECT_EQ(copies.size() + std::stoull(m[2]), copied);
}

// A bad CPROF_GPU_DUTY is one line from OnLoad, which refuses: no file, nothing traced.
TEST_F(HsaTool, ABadDutyIsRefused) {
  setenv("CPROF_GPU_DUTY", "0", 1);
  StandinRuntime rt;
  std::string error;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(rt.load_tool(CPROF_HSA_TOOL_PATH, error));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("CPROF_GPU_DUTY=0: expected a percentage"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir_));
}

extern "C" __attribute__((noinline)) hsa_status_t app_copy_rect(
    const AmdExtTable* amd, const hsa_pitched_ptr_t* dst, const hsa_pitched_ptr_t* src,
    const hsa_dim3_t* range, hsa_agent_t agent, hsa_amd_copy_direction_t dir, hsa_signal_t done) {
  const hsa_dim3_t zero{0, 0, 0};
  const hsa_status_t s = amd->hsa_amd_memory_async_copy_rect_fn(dst, &zero, src, &zero, range,
                                                                agent, dir, 0, nullptr, done);
  asm volatile("" ::: "memory");
  return s;
}

// 2D/3D copies (hsa_amd_memory_async_copy_rect, what hipMemcpy2D/3D use): the program's
// copy happens and its signal fires; the record has the direction from `dir`, the bytes
// of the range (x bytes × y rows × z layers), its time and the launching function.
TEST_F(HsaTool, RectCopiesHaveDirectionBytesAndTime) {
  StandinRuntime rt;
  load(rt);
  // 3 layers of 4 rows of 64 bytes, out of a host buffer with 128-byte rows.
  std::vector<char> host(3 * 4 * 128), device(3 * 4 * 64, 0), back(3 * 4 * 64, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<char>(i % 251);
  const hsa_pitched_ptr_t h{host.data(), 128, 4 * 128}, d{device.data(), 64, 4 * 64},
      b{back.data(), 64, 4 * 64};
  const hsa_dim3_t range{64, 4, 3};
  hsa_signal_t s1 = make_signal(rt, 1), s2 = make_signal(rt, 1);
  ASSERT_EQ(app_copy_rect(&rt.amd(), &d, &h, &range, rt.gpu_agent(), hsaHostToDevice, s1),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(rt.core().hsa_signal_wait_scacquire_fn(s1, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                                   HSA_WAIT_STATE_BLOCKED),
            0);
  ASSERT_EQ(app_copy_rect(&rt.amd(), &b, &d, &range, rt.gpu_agent(), hsaDeviceToDevice, s2),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(rt.core().hsa_signal_wait_scacquire_fn(s2, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                                   HSA_WAIT_STATE_BLOCKED),
            0);
  EXPECT_EQ(back[2 * 4 * 64 + 3 * 64 + 5], host[2 * 4 * 128 + 3 * 128 + 5]);  // really copied
  rt.wait_idle();
  rt.unload_tool();

  const auto records = results();
  std::map<uint32_t, fmt::GpuDeviceKind> kinds;
  for (const auto& dev : only<fmt::GpuDeviceRecord>(records)) kinds[dev.id] = dev.kind;
  auto copies = only<fmt::CopyRecord>(records);
  ASSERT_EQ(copies.size(), 2u);
  std::sort(copies.begin(), copies.end(),
            [](const auto& x, const auto& y) { return x.correlation_id < y.correlation_id; });
  EXPECT_EQ(copies[0].direction, fmt::CopyDirection::host_to_device);
  EXPECT_EQ(kinds[copies[0].src_device_id], fmt::GpuDeviceKind::cpu);
  EXPECT_EQ(kinds[copies[0].dst_device_id], fmt::GpuDeviceKind::gpu);
  EXPECT_EQ(copies[1].direction, fmt::CopyDirection::device_to_device);
  for (const auto& c : copies) {
    EXPECT_EQ(c.bytes, 64u * 4 * 3);
    EXPECT_GT(c.end_ns, c.start_ns);
    EXPECT_EQ(c.tid, gettid_());
    EXPECT_TRUE(stack_has(c.frames, reinterpret_cast<const void*>(&app_copy_rect)));
  }
  for (hsa_signal_t s : {s1, s2}) rt.core().hsa_signal_destroy_fn(s);
}

// A table from a runtime this tool does not know is refused, and left untouched.
TEST_F(HsaTool, OnLoadRefusesATableOfAnUnexpectedVersion) {
  StandinRuntime rt;
  HsaApiTable* table = rt.table();
  const auto queue_create = table->core_->hsa_queue_create_fn;
  std::string error;

  table->version.major_id = HSA_API_TABLE_MAJOR_VERSION + 1;
  EXPECT_FALSE(rt.load_tool(CPROF_HSA_TOOL_PATH, error)) << error;
  table->version.major_id = HSA_API_TABLE_MAJOR_VERSION;

  table->amd_ext_->version.minor_id = 64;  // an old AMD table without queue interception
  EXPECT_FALSE(rt.load_tool(CPROF_HSA_TOOL_PATH, error)) << error;
  table->amd_ext_->version.minor_id = sizeof(AmdExtTable);

  table->core_->version.major_id = 0;
  EXPECT_FALSE(rt.load_tool(CPROF_HSA_TOOL_PATH, error)) << error;
  table->core_->version.major_id = HSA_CORE_API_TABLE_MAJOR_VERSION;

  EXPECT_EQ(table->core_->hsa_queue_create_fn, queue_create);
  EXPECT_FALSE(std::filesystem::exists(dir_));  // no results file either
  // The same table, correct again, is accepted.
  EXPECT_TRUE(rt.load_tool(CPROF_HSA_TOOL_PATH, error)) << error;
  EXPECT_NE(table->core_->hsa_queue_create_fn, queue_create);
  rt.unload_tool();
}

}  // namespace
