#pragma once
// The device limits validity rules check configs against: read from a live device, or, for compiling
// without one (compile-only sweeps, CI), taken from the target's architecture.
#include "runtime/target.h"

namespace evotune {

namespace runtime {
struct DeviceProperties;
}

struct DeviceLimits {
  int compute_capability = 90;
  int max_threads_per_block = 1024;
  int shared_bytes_per_block_optin = 232448;
  int registers_per_sm = 65536;
  int sm_count = 132;
  int shared_bytes_per_sm = 228 * 1024;  // what resident CTAs share (occupancy, launch planning)
  int max_threads_per_sm = 2048;
  int l2_bytes = 50 * 1024 * 1024;  // the H100's; tile_order=sections sizes its sections of heads by it

  static DeviceLimits from(const runtime::DeviceProperties& props);
  // Published limits of the architecture (CUDA programming guide, compute capabilities table).
  static DeviceLimits for_target(const runtime::Target& target);
};

}  // namespace evotune
