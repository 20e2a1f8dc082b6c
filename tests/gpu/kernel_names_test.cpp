#include <gtest/gtest.h>

#include "gpu/hsa/kernel_names.h"

namespace cprof::gpu::hsa {
namespace {

TEST(KernelNames, DemanglesAndStripsTheDescriptorSuffix) {
  EXPECT_EQ(demangle_kernel_name("_Z6squarePfi.kd"), "square(float*, int)");
  EXPECT_EQ(demangle_kernel_name("_Z6squarePfi"), "square(float*, int)");
  EXPECT_EQ(demangle_kernel_name("_ZN2ns5scaleEPdd.kd"), "ns::scale(double*, double)");
  EXPECT_EQ(demangle_kernel_name("plain_c_kernel.kd"), "plain_c_kernel");
  EXPECT_EQ(demangle_kernel_name("_Znot_valid"), "_Znot_valid");
  EXPECT_EQ(demangle_kernel_name(""), "");
}

}  // namespace
}  // namespace cprof::gpu::hsa
