#pragma once
// End-to-end check of the compile -> load -> launch path on a real device, with the smoke family:
// NVRTC compiles variants for the device's native target, each is loaded and launched on random
// inputs, and its output is compared with a CPU reference. Inputs are multiples of 1/64 in [-2, 2), so
// every partial sum is exact in fp32 and the kernel must match the reference bit for bit; the output is
// poisoned with NaN first, so an unwritten element fails.
#include <string>
#include <vector>

#include "runtime/nvrtc_compiler.h"
#include "harness/smoke_family.h"

namespace evotune::harness {

struct SmokeCheck {
  templates::SmokeVariant variant;
  std::string kernel;  // name expression
  runtime::ResourceUsage resources;
  int driver_registers = 0;  // what the driver reports for the loaded kernel
  int elements = 0;
  int blocks = 0;
  int mismatches = 0;
  double max_abs_error = 0.0;
  bool from_cache = false;
  bool passed() const { return mismatches == 0; }
};

struct SmokeSelfTest {
  std::string device_name;
  std::string target;
  std::vector<SmokeCheck> checks;
  bool passed() const;
};

// Runs `variants` distinct smoke kernels on device `ordinal`. Throws NoDeviceError without a device.
SmokeSelfTest run_smoke_selftest(int ordinal, runtime::Compiler& compiler, int variants, unsigned compile_threads);

}  // namespace evotune::harness
