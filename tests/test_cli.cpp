// The evotune binary as a user runs it: exit codes and messages.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>

#include "runtime/cuda_driver.h"
#include "tests/test_support.h"

namespace {

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

using evotune::testing::evotune_binary;

CliRun run(const std::string& args) {
  std::string command = evotune_binary() + " " + args + " 2>&1";
  CliRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) r.output += buffer.data();
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

using evotune::testing::line_count;

}  // namespace

TEST(Cli, HelpAndVersionSucceed) {
  CliRun help = run("--help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* sub : {"devices", "selftest", "compile-bench", "cache"}) {
    EXPECT_NE(help.output.find(sub), std::string::npos) << sub;
  }
  EXPECT_EQ(run("devices --help").exit_code, 0);
  EXPECT_EQ(run("cache clear --help").exit_code, 0);
  CliRun version = run("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.output.find("NVRTC 13."), std::string::npos) << version.output;
  EXPECT_NE(version.output.find("SQLite 3."), std::string::npos) << version.output;
}

TEST(Cli, UsageErrorsExitTwoWithOneLine) {
  for (const char* args : {"", "no-such-command", "devices --bogus", "compile-bench --count 0",
                           "compile-bench --target sm_9x", "cache"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(line_count(r.output), 1) << args << ": " << r.output;
    EXPECT_EQ(r.output.rfind("evotune: error: ", 0), 0u) << r.output;
  }
}

TEST(Cli, NoDriverExitsThreeWithAClearMessage) {
  if (evotune::runtime::driver_available()) GTEST_SKIP() << "a CUDA driver is present on this machine";
  for (const char* args : {"devices", "devices --json", "selftest"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 3) << args;
    EXPECT_NE(r.output.find("no CUDA driver"), std::string::npos) << r.output;
  }
}

TEST(Cli, CacheCommandsUseTheGivenDirectory) {
  evotune::testing::TempDir dir;
  std::string cache = "--cache-dir " + dir.path().string();
  CliRun path = run(cache + " cache path");
  EXPECT_EQ(path.exit_code, 0);
  EXPECT_EQ(path.output, dir.path().string() + "\n");
  CliRun info = run(cache + " cache info");
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_NE(info.output.find("0 entries"), std::string::npos) << info.output;
  EXPECT_EQ(run(cache + " cache clear").exit_code, 0);
}

// `compile` without a GPU: the problem-aware default for the target, alone or with tunables changed
// ("default,NAME=VALUE"); a bad assignment after "default," is a usage error.
TEST(Cli, CompileTakesTheDefaultWithChanges) {
  const std::string problem = "--problem b=4,hq=16,sq=4096,d=128 --target sm_90a";
  CliRun plain = run("--no-cache compile " + problem);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("mma=wgmma,"), std::string::npos) << plain.output;
  EXPECT_NE(plain.output.find(",rescale=lazy,skip_idle=off,tile_order=heads\n"), std::string::npos)
      << plain.output;
  CliRun named = run("--no-cache compile " + problem + " --config default");
  ASSERT_EQ(named.exit_code, 0) << named.output;
  EXPECT_EQ(named.output.substr(0, named.output.find('\n')), plain.output.substr(0, plain.output.find('\n')));
  CliRun changed = run("--no-cache compile " + problem + " --config default,rescale=every");
  ASSERT_EQ(changed.exit_code, 0) << changed.output;
  std::string expected = plain.output.substr(0, plain.output.find('\n'));
  expected.replace(expected.find("rescale=lazy"), 12, "rescale=every");
  EXPECT_EQ(changed.output.substr(0, changed.output.find('\n')), expected);
  EXPECT_EQ(run("compile " + problem + " --config default,rescale=sometimes").exit_code, 2);
  EXPECT_EQ(run("compile " + problem + " --config default,bogus=1").exit_code, 2);
}

TEST(Cli, CompileBenchMeasuresColdAndCached) {
  CliRun r = run("compile-bench --count 4 --threads 2 --target sm_80 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"cold_per_second\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"cached_per_second\""), std::string::npos) << r.output;
  // Threads and processes side by side, one row each; attention configs as the search compiles them.
  CliRun both = run("compile-bench --count 2 --threads 1 --processes 1,2 --kernel attention --problem "
                    "b=1,hq=2,sq=128,d=64 --target sm_80");
  ASSERT_EQ(both.exit_code, 0) << both.output;
  EXPECT_NE(both.output.find("threads       1"), std::string::npos) << both.output;
  EXPECT_NE(both.output.find("processes     2"), std::string::npos) << both.output;
  EXPECT_EQ(run("compile-bench --processes 0").exit_code, 2);
  EXPECT_EQ(run("compile-bench --threads 4,x").exit_code, 2);
}
