// GPU tests: skip without a driver and device, saying why; on a GPU they compile, load, launch and
// check real kernels.
#include <gtest/gtest.h>

#include "harness/smoke_selftest.h"
#include "runtime/device_properties.h"
#include "tests/test_support.h"

using namespace evotune;

TEST(GpuDevice, PropertiesAreConsistent) {
  EVOTUNE_REQUIRE_GPU();
  runtime::DeviceProperties p = runtime::query_device(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.cc_major, 7);
  EXPECT_GT(p.sm_count, 0);
  EXPECT_GE(p.shared_bytes_per_block_optin, p.shared_bytes_per_block);
  EXPECT_GE(p.shared_bytes_per_sm, p.shared_bytes_per_block_optin);
  EXPECT_GT(p.l2_bytes, 0);
  EXPECT_GT(p.theoretical_bandwidth_gbps(), 100.0);
  EXPECT_EQ(p.warp_size, 32);
  if (p.cc_major == 9 && p.cc_minor == 0) {
    EXPECT_EQ(p.native_target(), "sm_90a");
  }
  EXPECT_THROW(runtime::query_device(p.ordinal + 1000), NoDeviceError);
}

TEST(GpuSmoke, CompileLoadLaunchAndCheckSixteenKernels) {
  EVOTUNE_REQUIRE_GPU();
  runtime::NvrtcCompiler compiler;
  harness::SmokeSelfTest report = harness::run_smoke_selftest(0, compiler, 16, 4);
  ASSERT_EQ(report.checks.size(), 16u);
  for (const auto& c : report.checks) {
    EXPECT_TRUE(c.passed()) << c.kernel << ": " << c.mismatches << " wrong of " << c.blocks
                            << ", max error " << c.max_abs_error;
    // What ptxas reported at compile time is what the driver sees at load time.
    EXPECT_EQ(c.driver_registers, c.resources.registers) << c.kernel;
  }
  EXPECT_TRUE(report.passed());
}
