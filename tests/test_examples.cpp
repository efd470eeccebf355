// The shipped example kernels (examples/kernels/*/spec.toml) on a machine without a GPU, as a user of a fresh
// clone would try them: a compile-only search of each (NVRTC for sm_90a, recorded in SQLite) and a report of
// that run.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/test_support.h"

namespace {

struct ExampleRun {
  int exit_code = -1;
  std::string output;
};

ExampleRun run_example_command(const std::string& args) {
  const std::string command = evotune::testing::evotune_binary() + " " + args + " 2>&1";
  ExampleRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) r.output += buffer.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class ExampleKernel : public ::testing::TestWithParam<const char*> {};

TEST_P(ExampleKernel, CompilesOnlyAndReportsWithoutAGpu) {
  evotune::testing::TempDir dir;
  const std::string spec = (evotune::testing::source_dir() / "examples" / "kernels" / GetParam() / "spec.toml").string();
  const std::string db = (dir.path() / "examples.db").string();
  const std::string html = (dir.path() / "report.html").string();
  const ExampleRun search = run_example_command("--no-cache search --kernel " + spec +
                                                " --compile-only --budget 2 --compile-processes 2 --db " + db);
  ASSERT_EQ(search.exit_code, 0) << search.output;
  // Every listed problem is a run of its own; the last is reported.
  EXPECT_NE(search.output.find("2 accepted"), std::string::npos) << search.output;
  const ExampleRun report = run_example_command("report --db " + db + " -o " + html);
  ASSERT_EQ(report.exit_code, 0) << report.output;
  std::ifstream page(html);
  std::stringstream text;
  text << page.rdbuf();
  EXPECT_NE(text.str().find("user_kernel:"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Shipped, ExampleKernel, ::testing::Values("gemm", "softmax", "reduction"));

}  // namespace
