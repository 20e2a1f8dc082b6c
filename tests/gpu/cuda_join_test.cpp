// The CUDA tool's logic without CUPTI or a GPU: which API calls are watched, the join of
// launches to activity records by correlation id, record building and clock mapping, fed
// with synthetic CUPTI-like records.
#include <gtest/gtest.h>

#include <vector>

#include "gpu/common/causal_wait.h"
#include "gpu/common/clock_map.h"
#include "gpu/common/launch_stack.h"
#include "gpu/cuda/activity_records.h"
#include "gpu/cuda/api_filter.h"
#include "gpu/cuda/launch_join.h"
#include "gpu/cuda/launch_tracker.h"
#include "gpu/cuda/sync_callbacks.h"

namespace cprof::gpu::cuda {
namespace {

std::shared_ptr<const Launch> launch_at(uint64_t time_ns, int64_t tid,
                                        std::vector<uint64_t> frames = {}) {
  auto l = std::make_shared<Launch>();
  l->time_ns = time_ns;
  l->tid = tid;
  l->frames = std::move(frames);
  return l;
}

TEST(CudaApiFilter, WatchesLaunchesAndCopiesOfBothApis) {
  EXPECT_EQ(classify_api("cudaLaunchKernel_v7000"), ApiKind::launch);
  EXPECT_EQ(classify_api("cudaLaunchKernel_ptsz_v7000"), ApiKind::launch);
  EXPECT_EQ(classify_api("cudaLaunchKernelExC_v11060"), ApiKind::launch);
  EXPECT_EQ(classify_api("cudaLaunchCooperativeKernel_v9000"), ApiKind::launch);
  EXPECT_EQ(classify_api("cuLaunchKernel"), ApiKind::launch);
  EXPECT_EQ(classify_api("cuLaunchKernelEx_ptsz"), ApiKind::launch);
  EXPECT_EQ(classify_api("cuLaunchGridAsync"), ApiKind::launch);
  EXPECT_EQ(classify_api("cudaMemcpy_v3020"), ApiKind::copy);
  EXPECT_EQ(classify_api("cudaMemcpyAsync_ptsz_v7000"), ApiKind::copy);
  EXPECT_EQ(classify_api("cudaMemcpyToSymbol_v3020"), ApiKind::copy);
  EXPECT_EQ(classify_api("cuMemcpyHtoD_v2"), ApiKind::copy);
  EXPECT_EQ(classify_api("cuMemcpyDtoHAsync_v2_ptsz"), ApiKind::copy);
  EXPECT_EQ(classify_api("cudaGraphLaunch_v10000"), ApiKind::many);
  EXPECT_EQ(classify_api("cuGraphLaunch_ptsz"), ApiKind::many);
  EXPECT_EQ(classify_api("cudaMemcpyBatchAsync_v12080"), ApiKind::many);
  EXPECT_EQ(classify_api("cudaLaunchHostFunc_v10000"), ApiKind::none);
  EXPECT_EQ(classify_api("cuLaunchHostFunc"), ApiKind::none);
  EXPECT_EQ(classify_api("cudaMemcpyPeerAsync_v4000"), ApiKind::none);
  EXPECT_EQ(classify_api("cuMemcpyPeer"), ApiKind::none);
  EXPECT_EQ(classify_api("cudaMalloc_v3020"), ApiKind::none);
  EXPECT_EQ(classify_api("cuMemsetD8_v2"), ApiKind::none);
  EXPECT_EQ(classify_api("cudaStreamSynchronize_v3020"), ApiKind::none);
  EXPECT_EQ(classify_api(""), ApiKind::none);
}

TEST(CudaSyncCallbacks, HostBlockingSynchronizationsOfBothApis) {
  for (const char* name :
       {"cuCtxSynchronize", "cuStreamSynchronize", "cuStreamSynchronize_ptsz",
        "cuEventSynchronize", "cudaDeviceSynchronize", "cudaDeviceSynchronize_v3020",
        "cudaThreadSynchronize_v3020", "cudaStreamSynchronize_v3020",
        "cudaStreamSynchronize_ptsz_v7000", "cudaEventSynchronize_v3020"}) {
    EXPECT_TRUE(is_host_sync_api(name)) << name;
    EXPECT_EQ(classify_api(name), ApiKind::none) << name;  // never a launch
  }
  // The GPU waits, or the call returns at once: not a host wait.
  for (const char* name :
       {"cuStreamWaitEvent", "cudaStreamWaitEvent_v3020", "cuStreamQuery", "cudaEventQuery_v3020",
        "cuCtxSynchronizeX", "cudaLaunchKernel_v7000", "cuEventRecord", ""}) {
    EXPECT_FALSE(is_host_sync_api(name)) << name;
  }
}

TEST(CudaSyncCallbacks, WithoutTheCausalRuntimeEnterAndExitDoNothing) {
  EXPECT_FALSE(cprof::gpu::find_causal_runtime());
  host_sync_enter();
  host_sync_exit();
  EXPECT_FALSE(cprof::gpu::causal_runtime_present());
}

TEST(CudaApiFilter, DomainsFromTheEnvironment) {
  const auto d = parse_api_domains("");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->driver);
  EXPECT_FALSE(d->runtime);
  EXPECT_TRUE(parse_api_domains("runtime")->runtime);
  EXPECT_FALSE(parse_api_domains("runtime")->driver);
  EXPECT_TRUE(parse_api_domains("both")->runtime && parse_api_domains("both")->driver);
  EXPECT_FALSE(parse_api_domains("none")->runtime || parse_api_domains("none")->driver);
  EXPECT_FALSE(parse_api_domains("Driver").has_value());
}

TEST(CudaLaunchJoin, OneRecordTakesItsLaunchOnce) {
  LaunchJoin join;
  join.add(7, launch_at(100, 42, {1, 2}), false);
  const auto l = join.take(7);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->tid, 42);
  EXPECT_EQ(l->frames, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(join.take(7), nullptr);
  EXPECT_EQ(join.take(8), nullptr);
  EXPECT_EQ(join.pending(), 0u);
}

TEST(CudaLaunchJoin, EitherIdOfANestedCallFindsTheLaunchAndForgetsBoth) {
  for (const uint32_t which : {10u, 11u}) {
    LaunchJoin join;
    join.add(10, launch_at(100, 1), false);  // the runtime call
    join.alias(11, 10);                      // the driver call inside it
    EXPECT_EQ(join.pending(), 2u);
    ASSERT_NE(join.take(which), nullptr) << which;
    EXPECT_EQ(join.pending(), 0u) << which;
  }
  LaunchJoin join;
  join.add(10, launch_at(100, 1), false);
  join.alias(10, 10);  // runtime and driver sharing an id
  join.alias(12, 99);  // an id never added: ignored
  EXPECT_EQ(join.pending(), 1u);
}

TEST(CudaLaunchJoin, GraphLaunchesServeEveryRecordOfTheirId) {
  LaunchJoin join;
  join.add(5, launch_at(100, 1), true);
  for (int i = 0; i < 4; ++i) EXPECT_NE(join.take(5), nullptr);
  EXPECT_EQ(join.pending(), 1u);
}

TEST(CudaLaunchJoin, FailedCallsAreForgottenWithTheirAliases) {
  LaunchJoin join;
  join.add(3, launch_at(100, 1), false);
  join.alias(4, 3);
  join.forget(4);
  EXPECT_EQ(join.pending(), 0u);
  join.forget(4);  // twice: nothing left to do
}

TEST(CudaLaunchJoin, AFullTableDropsTheOldestHalf) {
  LaunchJoin join(8);
  for (uint32_t id = 1; id <= 8; ++id) join.add(id, launch_at(id, 1), id == 1);
  EXPECT_EQ(join.pending(), 8u);
  join.add(9, launch_at(9, 1), false);  // full: ids older than 9 - 4 go
  EXPECT_EQ(join.take(1), nullptr);
  EXPECT_EQ(join.take(4), nullptr);
  EXPECT_NE(join.take(5), nullptr);
  EXPECT_NE(join.take(9), nullptr);
  EXPECT_EQ(join.swept(), 4u);
}

TEST(CudaLaunchTracker, TheOutermostCallOwnsTheLaunchAndNestedCallsAlias) {
  LaunchJoin join;
  LaunchStacks stacks(16, false);  // no unwinding in this test
  LaunchTracker tracker(join, stacks);
  tracker.enter(ApiKind::launch, 20);  // cudaLaunchKernel
  tracker.enter(ApiKind::launch, 21);  // cuLaunchKernel inside it
  tracker.exit(21, false);
  tracker.exit(20, false);
  EXPECT_EQ(join.pending(), 2u);
  const auto l = join.take(21);
  ASSERT_NE(l, nullptr);
  EXPECT_GT(l->time_ns, 0u);
  EXPECT_GT(l->tid, 0);
  EXPECT_TRUE(l->frames.empty());
  EXPECT_EQ(join.pending(), 0u);

  tracker.enter(ApiKind::copy, 30);  // a failed copy leaves nothing behind
  tracker.enter(ApiKind::copy, 31);
  tracker.exit(31, true);
  EXPECT_EQ(join.pending(), 2u);
  tracker.exit(30, true);
  EXPECT_EQ(join.pending(), 0u);

  tracker.enter(ApiKind::launch, 40);  // nesting ended: a new outermost call
  tracker.exit(40, false);
  EXPECT_NE(join.take(40), nullptr);
}

// Between trace windows the callbacks are off: a call entered just before a window
// closed never reports its exit. The next window must not take the thread's next launch
// for a call nested in that lost one (it would only become an alias, without a stack).
TEST(CudaLaunchTracker, ACallWhoseExitFellBetweenWindowsDoesNotSwallowTheNextLaunch) {
  LaunchJoin join;
  LaunchStacks stacks(16, false);
  LaunchTracker tracker(join, stacks);
  tracker.enter(ApiKind::launch, 50);  // its exit is never seen: the window closed
  tracker.new_window();
  tracker.enter(ApiKind::launch, 60);
  tracker.exit(60, true);  // a failed outermost call forgets itself: it owned the launch
  EXPECT_EQ(join.take(60), nullptr);
  tracker.enter(ApiKind::launch, 61);
  tracker.exit(61, false);
  const auto l = join.take(61);
  ASSERT_NE(l, nullptr);
  EXPECT_NE(join.take(50), l);  // 61 is a launch of its own, not an alias of 50

  tracker.enter(ApiKind::launch, 70);  // entered in one window, exits in the next
  tracker.new_window();
  tracker.exit(70, true);  // an exit from before the window: ignored, 70 stays
  EXPECT_NE(join.take(70), nullptr);
  tracker.enter(ApiKind::launch, 71);
  tracker.exit(71, false);
  EXPECT_NE(join.take(71), nullptr);
}

TEST(CudaClockMap, KeepsTheNarrowestBracket) {
  // host() is read before and after each read(): brackets of 50, 10 and 30 ns.
  std::vector<uint64_t> host = {1000, 1050, 2000, 2010, 3000, 3030};
  std::vector<uint64_t> ticks = {7, 500, 900};
  size_t h = 0, t = 0;
  const auto map = calibrate_clock(
      [&](uint64_t& out) {
        out = ticks[t++];
        return true;
      },
      1.0, [&] { return host[h++]; }, 3);
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->ticks, 500u);
  EXPECT_EQ(map->host_ns, 2005u);
  EXPECT_EQ(map->to_host(600), 2105u);
  EXPECT_EQ(map->to_host(400), 1905u);
  EXPECT_FALSE(calibrate_clock([](uint64_t&) { return false; }, 1.0).has_value());
}

struct Collected {
  std::vector<format::KernelRecord> kernels;
  std::vector<format::CopyRecord> copies;
  std::vector<format::GpuDeviceRecord> devices;
  ActivityRecords::Sink sink() {
    return [this](format::Record r) {
      if (auto* k = std::get_if<format::KernelRecord>(&r)) kernels.push_back(*k);
      if (auto* c = std::get_if<format::CopyRecord>(&r)) copies.push_back(*c);
      if (auto* d = std::get_if<format::GpuDeviceRecord>(&r)) devices.push_back(*d);
    };
  }
};

TEST(CudaActivityRecords, KernelsAreJoinedNamedAndOnTheHostClock) {
  LaunchJoin join;
  Collected out;
  ActivityRecords records(join, out.sink());
  records.set_clock(ClockMap{1'000'000, 50'000'000, 1.0});  // CUPTI 1 ms = host 50 ms
  records.device(0, "NVIDIA H100 80GB HBM3");
  join.add(9, launch_at(49'000'000, 77, {0x1000, 0x2000}), false);
  KernelActivity k;
  k.correlation_id = 9;
  k.start = 1'000'500;
  k.end = 1'002'500;
  k.device = 0;
  k.stream = 13;
  k.grid_id = 4;
  k.grid[0] = 1024;
  k.grid[1] = 2;
  k.grid[2] = 1;
  k.block[0] = 256;
  k.block[1] = 1;
  k.block[2] = 1;
  k.name = "_Z12scale_kernelPffi";
  records.kernel(k);
  k.correlation_id = 10;  // no launch known (not watched, or its stack was swept)
  k.start = 0;            // and still running at a forced flush
  k.end = 0;
  records.kernel(k);

  ASSERT_EQ(out.kernels.size(), 2u);
  const auto& r = out.kernels[0];
  EXPECT_EQ(r.name, "scale_kernel(float*, float, int)");
  EXPECT_EQ(r.time_ns, 49'000'000u);
  EXPECT_EQ(r.start_ns, 50'000'500u);
  EXPECT_EQ(r.end_ns, 50'002'500u);
  EXPECT_EQ(r.tid, 77);
  EXPECT_EQ(r.frames, (std::vector<uint64_t>{0x1000, 0x2000}));
  EXPECT_EQ(r.device_id, ActivityRecords::device_id(0));
  EXPECT_EQ(r.queue_id, 13u);
  EXPECT_EQ(r.dispatch_id, 4u);
  EXPECT_EQ(r.grid[0], 1024u * 256u);  // work-items, as HSA counts them
  EXPECT_EQ(r.grid[1], 2u);
  EXPECT_EQ(r.workgroup[0], 256u);
  EXPECT_EQ(r.correlation_id, 9u);
  EXPECT_EQ(out.kernels[1].tid, 0);
  EXPECT_TRUE(out.kernels[1].frames.empty());
  EXPECT_EQ(out.kernels[1].start_ns, 0u);
  EXPECT_EQ(out.kernels[1].end_ns, 0u);
  // The device's own name, then the host when first needed; each once.
  ASSERT_EQ(out.devices.size(), 2u);
  EXPECT_EQ(out.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(out.devices[0].id, ActivityRecords::device_id(0));
  EXPECT_EQ(out.devices[1].id, ActivityRecords::kHostDeviceId);
  EXPECT_EQ(out.devices[1].kind, format::GpuDeviceKind::cpu);
}

TEST(CudaActivityRecords, CopiesHaveDirectionBytesAndEnds) {
  LaunchJoin join;
  Collected out;
  ActivityRecords records(join, out.sink());
  records.set_clock(ClockMap{0, 0, 1.0});
  const struct {
    CuptiCopyKind kind;
    format::CopyDirection direction;
  } cases[] = {
      {CuptiCopyKind::htod, format::CopyDirection::host_to_device},
      {CuptiCopyKind::dtoh, format::CopyDirection::device_to_host},
      {CuptiCopyKind::dtod, format::CopyDirection::device_to_device},
      {CuptiCopyKind::htoh, format::CopyDirection::host_to_host},
      {CuptiCopyKind::htoa, format::CopyDirection::host_to_device},
      {CuptiCopyKind::atoh, format::CopyDirection::device_to_host},
      {CuptiCopyKind::ptop, format::CopyDirection::device_to_device},
      {CuptiCopyKind::unknown, format::CopyDirection::unknown},
  };
  uint32_t id = 1;
  for (const auto& c : cases) {
    join.add(id, launch_at(id, 5), false);
    CopyActivity a;
    a.correlation_id = id++;
    a.start = 100;
    a.end = 300;
    a.device = 1;  // the second GPU
    a.bytes = 1 << 20;
    a.kind = static_cast<uint8_t>(c.kind);
    records.copy(a);
  }
  ASSERT_EQ(out.copies.size(), std::size(cases));
  const uint32_t gpu = ActivityRecords::device_id(1);
  const uint32_t host = ActivityRecords::kHostDeviceId;
  for (size_t i = 0; i < std::size(cases); ++i) {
    EXPECT_EQ(out.copies[i].direction, cases[i].direction) << i;
    EXPECT_EQ(out.copies[i].bytes, 1u << 20);
    EXPECT_EQ(out.copies[i].end_ns - out.copies[i].start_ns, 200u);
    EXPECT_EQ(out.copies[i].tid, 5);
  }
  EXPECT_EQ(out.copies[0].src_device_id, host);
  EXPECT_EQ(out.copies[0].dst_device_id, gpu);
  EXPECT_EQ(out.copies[1].src_device_id, gpu);
  EXPECT_EQ(out.copies[1].dst_device_id, host);
  EXPECT_EQ(out.copies[2].src_device_id, gpu);
  EXPECT_EQ(out.copies[2].dst_device_id, gpu);
  EXPECT_EQ(out.copies[3].src_device_id, host);
  EXPECT_EQ(out.copies[3].dst_device_id, host);
  ASSERT_EQ(out.devices.size(), 2u);  // the host and "CUDA device 1", once each
  EXPECT_EQ(out.devices[1].name, "CUDA device 1");
  EXPECT_EQ(join.pending(), 0u);
}

}  // namespace
}  // namespace cprof::gpu::cuda
