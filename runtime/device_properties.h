#pragma once
// What evotune needs to know about a GPU: limits for validity rules, figures for peak estimates.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace evotune::runtime {

// The architecture a device of this compute capability runs natively: "sm_90a" for 9.0 (wgmma, TMA and
// setmaxnreg need the arch-specific target), "sm_80" for 8.0.
std::string native_target(int cc_major, int cc_minor);

struct DeviceProperties {
  int ordinal = 0;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int warp_size = 0;
  int shared_bytes_per_block = 0;        // without opt-in
  int shared_bytes_per_block_optin = 0;  // after cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)
  int shared_bytes_per_sm = 0;
  int registers_per_block = 0;
  int registers_per_sm = 0;
  int l2_bytes = 0;
  int sm_clock_khz = 0;
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  std::uint64_t total_memory_bytes = 0;
  int driver_version = 0;  // e.g. 13000 for CUDA 13.0

  // Double data rate: two transfers per memory clock over the whole bus.
  double theoretical_bandwidth_gbps() const {
    return 2.0 * memory_clock_khz * 1e3 * (memory_bus_width_bits / 8.0) / 1e9;
  }
  // The NVRTC/ptxas target that unlocks every instruction of this chip: sm_90a on Hopper (wgmma,
  // setmaxnreg), sm_100a on Blackwell; the plain sm_XY elsewhere.
  std::string native_target() const;
};

int device_count();
DeviceProperties query_device(int ordinal);
std::vector<DeviceProperties> query_all_devices();

nlohmann::json to_json(const DeviceProperties& p);
// "13.0" from 13000.
std::string format_cuda_version(int version);

}  // namespace evotune::runtime
