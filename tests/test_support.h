#pragma once
// Helpers shared by the tests: temporary directories and GPU-test skipping.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "runtime/cuda_driver.h"

namespace evotune::testing {

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
