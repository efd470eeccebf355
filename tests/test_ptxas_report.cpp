#include <gtest/gtest.h>

#include "runtime/nvrtc_compiler.h"

using evotune::runtime::parse_ptxas_report;

TEST(PtxasReport, ParsesEntriesAndIgnoresNonEntryFunctions) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z3fooPf' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z6helperv\n"
      "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Function properties for _Z3fooPf\n"
      "ptxas         .     16 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function '_Z3barv' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z3barv\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, 352 bytes cmem[0]\n";
  auto report = parse_ptxas_report(log);
  ASSERT_EQ(report.size(), 2u);
  const auto& foo = report.at("_Z3fooPf");
  EXPECT_EQ(foo.registers, 255);
  EXPECT_EQ(foo.barriers, 1);
  EXPECT_EQ(foo.shared_bytes, 1024);
  EXPECT_EQ(foo.stack_frame_bytes, 16);
  EXPECT_EQ(foo.spill_store_bytes, 4);
  EXPECT_EQ(foo.spill_load_bytes, 12);
  const auto& bar = report.at("_Z3barv");
  EXPECT_EQ(bar.registers, 8);
  EXPECT_EQ(bar.barriers, 0);
  EXPECT_EQ(bar.shared_bytes, 0);
  EXPECT_EQ(bar.spill_store_bytes, 0);
}

// ptxas names the function whose wgmma it serialized before compiling it; the kernel is then 10-50% slower
// (probe/call14) with nothing else in the report to show it.
TEST(PtxasReport, ReadsSerializedWgmma) {
  const std::string log =
      "ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
      "insufficient register resources for the wgmma pipeline in the function '_Z4wgmmv'\n"
      "ptxas info    : Compiling entry function '_Z4wgmmv' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z4wgmmv\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 16 barriers\n"
      "ptxas info    : Compiling entry function '_Z5otherv' for 'sm_90a'\n"
      "ptxas info    : Used 8 registers\n"
      // C7512 words it "for the function" (a one-consumer CTA at four per SM whose next Q.K^T is issued behind
      // its P.V: each wgmma then waits for the one before, and the compile had been accepted).
      "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
      "insufficient register resources for the function '_Z5tightv'\n"
      "ptxas info    : Compiling entry function '_Z5tightv' for 'sm_90a'\n"
      "ptxas info    : Used 64 registers, used 10 barriers\n";
  const auto report = parse_ptxas_report(log);
  EXPECT_TRUE(report.at("_Z4wgmmv").wgmma_serialized);
  EXPECT_EQ(report.at("_Z4wgmmv").registers, 168);
  EXPECT_FALSE(report.at("_Z5otherv").wgmma_serialized);
  EXPECT_TRUE(report.at("_Z5tightv").wgmma_serialized);
  EXPECT_EQ(report.at("_Z5tightv").registers, 64);
  // A result whose resources came from JSON without the flag (a cache entry) reads it from its log.
  evotune::runtime::CompileResult cached;
  cached.log = log;
  cached.resources["_Z4wgmmv"].registers = 168;
  evotune::runtime::read_log_warnings(cached);
  EXPECT_TRUE(cached.resources.at("_Z4wgmmv").wgmma_serialized);
}

TEST(PtxasReport, EmptyLogGivesNothing) { EXPECT_TRUE(parse_ptxas_report("").empty()); }
