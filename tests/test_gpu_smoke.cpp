// GPU tests: skip without a driver and device, saying why; on a GPU they compile, load, launch and
// check real kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "harness/smoke_selftest.h"
#include "harness/timer.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_objects.h"
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

// DeviceBuffer::upload is complete on return: a copy issued at once on one of our (non-blocking) streams reads
// the new bytes. cuMemcpyHtoD from pageable memory returns once its bytes are staged, ordered only on the
// legacy stream: on the H100, without upload's wait, a copy like this one read stale words in 1982 of 2000
// rounds of 1 MiB into fresh buffers (probe/call172). Fifty such rounds, new words each.
TEST(GpuDevice, UploadIsCompleteOnReturn) {
  EVOTUNE_REQUIRE_GPU();
  runtime::DeviceContext context(0);
  runtime::Stream stream;
  const std::size_t words = std::size_t{1} << 18, bytes = words * 4;
  std::vector<std::uint32_t> host(words), back(words);
  for (std::uint32_t round = 1; round <= 50; ++round) {
    runtime::DeviceBuffer uploaded(bytes, "uploaded"), copied(bytes, "copied");
    for (std::size_t i = 0; i < words; ++i) host[i] = round * 2654435761u + static_cast<std::uint32_t>(i);
    uploaded.upload(host.data(), bytes);
    EVOTUNE_CU(cuMemcpyDtoDAsync(copied.get(), uploaded.get(), bytes, stream.get()), "copying the upload on");
    stream.synchronize();
    copied.download(back.data(), bytes);
    const auto wrong = std::mismatch(host.begin(), host.end(), back.begin()).first;
    ASSERT_EQ(wrong, host.end()) << "round " << round << ": word " << (wrong - host.begin()) << " of " << words
                                 << " is stale";
  }
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

// Racing (harness::TimingOptions::race_above_us), with a 256 MiB memset standing in for a kernel: above
// the line, three flushed samples and raced; below it, the full warm-up and repetitions.
TEST(GpuTimer, RacesOnlyWhatIsSlowerThanTheLine) {
  EVOTUNE_REQUIRE_GPU();
  evotune::runtime::DeviceContext context(0);
  evotune::runtime::Stream stream;
  evotune::runtime::DeviceBuffer work(256u << 20, "work");
  evotune::harness::Timer timer(std::size_t{100} << 20);
  auto launch = [&](const evotune::runtime::Stream& s) { work.fill_bytes(0x5A, s); };
  launch(stream);
  evotune::harness::TimingOptions options;
  options.repetitions = 20;

  options.race_above_us = 1.0;  // far below a 256 MiB write
  auto raced = timer.time(launch, stream, options);
  EXPECT_TRUE(raced.raced);
  EXPECT_EQ(raced.samples_us.size(), 3u);
  EXPECT_GT(raced.median_us, 1.0);

  options.race_above_us = 1e9;  // far above it
  auto full = timer.time(launch, stream, options);
  EXPECT_FALSE(full.raced);
  EXPECT_EQ(full.samples_us.size(), 20u);
  // Both measure the same work: the raced median is within 2x of the full one.
  EXPECT_LT(raced.median_us, 2 * full.median_us);
  EXPECT_GT(raced.median_us, 0.5 * full.median_us);
}

// A given batch (harness::TimingOptions::batch) is what times every sample, whatever the work's length: a
// short fill timed one launch per sample when told 1 (it would be batched by its length otherwise), and a
// CUDA graph of 7 when told 7.
TEST(GpuTimer, AGivenBatchOverridesTheLength) {
  EVOTUNE_REQUIRE_GPU();
  evotune::runtime::DeviceContext context(0);
  evotune::runtime::Stream stream;
  evotune::runtime::DeviceBuffer work(1u << 20, "work");
  evotune::harness::Timer timer(std::size_t{100} << 20);
  auto launch = [&](const evotune::runtime::Stream& s) { work.fill_bytes(0x5A, s); };
  launch(stream);
  evotune::harness::TimingOptions options;
  options.repetitions = 5;
  const auto by_length = timer.time(launch, stream, options);
  EXPECT_GT(by_length.batch, 1);  // a 1 MiB fill is far below 20 us
  options.batch = 1;
  const auto single = timer.time(launch, stream, options);
  EXPECT_EQ(single.batch, 1);
  EXPECT_FALSE(single.graph);
  options.batch = 7;
  const auto seven = timer.time(launch, stream, options);
  EXPECT_EQ(seven.batch, 7);
  EXPECT_TRUE(seven.graph);
  EXPECT_EQ(seven.samples_us.size(), 5u);
}

// Both L2 flushes (harness::L2Flush) empty L2: a device-to-device copy of 16 MiB (its source and
// destination fit in the H100's 50 MiB L2) takes longer after a flush than right after the same copy,
// when its source is still in L2. The read flush's kernel (PTX the driver translates) loads and runs.
TEST(GpuTimer, BothFlushesEvictL2) {
  EVOTUNE_REQUIRE_GPU();
  evotune::runtime::DeviceContext context(0);
  const runtime::DeviceProperties props = runtime::query_device(0);
  evotune::runtime::Stream stream;
  const std::size_t bytes = std::min<std::size_t>(16u << 20, static_cast<std::size_t>(props.l2_bytes) / 4);
  evotune::runtime::DeviceBuffer source(bytes, "source"), target(bytes, "target");
  source.fill_bytes(1, stream);
  auto copy = [&](const evotune::runtime::Stream& s) {
    EVOTUNE_CU(cuMemcpyDtoDAsync(target.get(), source.get(), bytes, s.get()), "copying");
  };
  evotune::runtime::Event start, stop;
  auto timed_copy_us = [&] {
    start.record(stream);
    copy(stream);
    stop.record(stream);
    stop.synchronize();
    return 1e3 * stop.elapsed_ms_since(start);
  };
  for (harness::L2Flush mode : {harness::L2Flush::read, harness::L2Flush::write}) {
    harness::Timer timer(static_cast<std::size_t>(props.l2_bytes) * 2, mode);
    EXPECT_EQ(timer.flush_mode(), mode);
    std::vector<double> hot, cold;
    for (int i = 0; i < 21; ++i) {
      copy(stream);
      hot.push_back(timed_copy_us());
      timer.flush_l2(stream);
      cold.push_back(timed_copy_us());
    }
    std::sort(hot.begin(), hot.end());
    std::sort(cold.begin(), cold.end());
    EXPECT_GT(cold[10], 1.15 * hot[10]) << harness::to_string(mode) << " flush: copy after it " << cold[10]
                                         << " us, with L2 hot " << hot[10] << " us";
  }
  EXPECT_EQ(harness::parse_l2_flush("read"), harness::L2Flush::read);
  EXPECT_EQ(harness::parse_l2_flush("write"), harness::L2Flush::write);
  EXPECT_FALSE(harness::parse_l2_flush("clean").has_value());
}
