#include <gtest/gtest.h>

#include "core/errors.h"
#include "runtime/target.h"

using evotune::runtime::Target;

TEST(Target, ParsesExactTargets) {
  Target t = Target::parse("sm_90a");
  EXPECT_EQ(t.major, 9);
  EXPECT_EQ(t.minor, 0);
  EXPECT_TRUE(t.arch_specific);
  EXPECT_EQ(t.name(), "sm_90a");
  EXPECT_EQ(Target::parse("sm_80").name(), "sm_80");
  EXPECT_EQ(Target::parse("sm_89").compute_capability(), 89);
  EXPECT_EQ(Target::parse("sm_100a").major, 10);
}

TEST(Target, RejectsMalformedTargets) {
  for (const char* bad : {"", "sm_", "sm_9", "90", "compute_90", "sm_9x", "sm_90b", "sm_1000", "sm_30"}) {
    EXPECT_THROW(Target::parse(bad), evotune::UsageError) << bad;
  }
}
