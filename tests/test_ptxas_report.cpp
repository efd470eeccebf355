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

TEST(PtxasReport, EmptyLogGivesNothing) { EXPECT_TRUE(parse_ptxas_report("").empty()); }
