// The CUDA tool's sync callbacks reaching the causal runtime's entry point
// (causal/runtime/device_wait_api.h), without CUPTI or a GPU: this program exports a fake
// cprof_device_wait_api_v1 (ENABLE_EXPORTS), found with dlsym(RTLD_DEFAULT) as the real
// one is in libcprof-causal.so.
#include <gtest/gtest.h>

#include "causal/runtime/device_wait_api.h"
#include "gpu/common/causal_wait.h"
#include "gpu/cuda/sync_callbacks.h"

namespace {

int g_depth = 0;
int g_begins = 0;
int g_ends = 0;

void fake_begin() {
  ++g_depth;
  ++g_begins;
}
void fake_end() {
  --g_depth;
  ++g_ends;
}
constexpr cprof_device_wait_api kFake{1, &fake_begin, &fake_end};

}  // namespace

extern "C" __attribute__((visibility("default"))) const cprof_device_wait_api*
cprof_device_wait_api_v1() {
  return &kFake;
}

namespace cprof::gpu::cuda {
namespace {

TEST(CudaSyncCallbacks, EnterAndExitReachTheCausalRuntimeAndNest) {
  ASSERT_TRUE(find_causal_runtime());
  host_sync_enter();  // cudaDeviceSynchronize
  host_sync_enter();  // ... cuCtxSynchronize inside it
  EXPECT_EQ(g_depth, 2);
  host_sync_exit();
  host_sync_exit();
  EXPECT_EQ(g_depth, 0);
  EXPECT_EQ(g_begins, 2);
  EXPECT_EQ(g_ends, 2);
  {
    CausalDeviceWait wait;  // the HSA wrappers' scope
    EXPECT_EQ(g_depth, 1);
  }
  EXPECT_EQ(g_depth, 0);
}

}  // namespace
}  // namespace cprof::gpu::cuda
