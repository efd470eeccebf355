// core/trial_status.h: every status has one name, and the names read back.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "core/trial_status.h"

using evotune::core::kTrialStatuses;
using evotune::core::TrialStatus;

TEST(TrialStatus, EveryValueHasOneNameThatParsesBack) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kTrialStatuses.size(); ++i) {
    const TrialStatus s = kTrialStatuses[i];
    EXPECT_EQ(static_cast<std::size_t>(s), i) << "kTrialStatuses lists the values in order, each once";
    names.insert(evotune::core::status_name(s));
    EXPECT_EQ(evotune::core::parse_status(evotune::core::status_name(s)), s);
  }
  EXPECT_EQ(names, (std::set<std::string>{"ok", "invalid", "compile_error", "compile_timeout", "launch_error",
                                          "wrong_result", "timeout", "crash", "compiled"}));
  for (const char* other : {"", "OK", "ok ", "fast", "unknown", "running"}) {
    EXPECT_EQ(evotune::core::parse_status(other), std::nullopt) << other;
  }
  std::ostringstream out;
  out << TrialStatus::compile_timeout;
  EXPECT_EQ(out.str(), "compile_timeout");
}

TEST(TrialStatus, HelpersSayWhichStatusesAreValidAndWhichFailedToCompile) {
  for (TrialStatus s : kTrialStatuses) {
    EXPECT_EQ(evotune::core::is_valid(s), s == TrialStatus::ok) << s;
    EXPECT_EQ(evotune::core::is_compile_failure(s),
              s == TrialStatus::compile_error || s == TrialStatus::compile_timeout)
        << s;
  }
}
