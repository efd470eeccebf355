#pragma once
// Error types shared by every module. The CLI maps them to exit codes:
// UsageError -> 2, NoDeviceError -> 3, anything else -> 1.
#include <stdexcept>
#include <string>

namespace evotune {

// Bad input from the user (a malformed option, problem or config): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No CUDA driver, or a driver with no usable device: exit code 3.
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace evotune
