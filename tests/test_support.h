#pragma once
// Helpers shared by the tests: temporary directories, whole-file reads and writes, line counts, and GPU-test
// skipping.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "runtime/cuda_driver.h"

namespace evotune::testing {

// The source tree: $EVOTUNE_SOURCE_DIR, else the path CMake recorded (a build carried to another machine
// runs its tests from a checkout elsewhere).
inline std::filesystem::path source_dir() {
  if (const char* env = std::getenv("EVOTUNE_SOURCE_DIR"); env != nullptr && *env != '\0') return env;
  return EVOTUNE_SOURCE_DIR;
}
// The recorded T4 spaces the replay tests use (tests/data/t4).
inline std::filesystem::path t4_dir() { return source_dir() / "tests" / "data" / "t4"; }

// $EVOTUNE_BINARY, else ../cli/evotune beside this test binary (the build tree, wherever it was copied),
// else the path CMake recorded.
inline std::string evotune_binary() {
  if (const char* env = std::getenv("EVOTUNE_BINARY"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto sibling = self.parent_path().parent_path() / "cli" / "evotune";
    if (std::filesystem::exists(sibling, ec)) return sibling.string();
  }
  return EVOTUNE_BINARY;
}

// The example program: ../examples/tuned_attention_example beside this test binary, else CMake's path.
inline std::string example_binary() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto sibling = self.parent_path().parent_path() / "examples" / "tuned_attention_example";
    if (std::filesystem::exists(sibling, ec)) return sibling.string();
  }
  return EVOTUNE_EXAMPLE_BINARY;
}

// The C ABI library: ../deploy/libevotune_capi.so beside this test binary, else CMake's path.
inline std::string capi_library() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto sibling = self.parent_path().parent_path() / "deploy" / "libevotune_capi.so";
    if (std::filesystem::exists(sibling, ec)) return sibling.string();
  }
  return EVOTUNE_CAPI_LIBRARY;
}

// A file's bytes, exactly ("" when it cannot be read).
inline std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Replaces a file's content with `bytes`.
inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Lines in a program's output: its newlines.
inline int line_count(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// A directory under /tmp removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/evotune-test-XXXXXX";
    if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace evotune::testing

// GPU tests call this first: without a driver and a device they skip, saying why.
#define EVOTUNE_REQUIRE_GPU()                                                       \
  do {                                                                              \
    std::string evotune_no_gpu_reason;                                              \
    if (!::evotune::runtime::driver_available(&evotune_no_gpu_reason)) {            \
      GTEST_SKIP() << "GPU test skipped: " << evotune_no_gpu_reason;                \
    }                                                                               \
  } while (0)
