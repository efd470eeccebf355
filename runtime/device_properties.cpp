#include "runtime/device_properties.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "runtime/cuda_driver.h"

namespace evotune::runtime {

std::string native_target(int cc_major, int cc_minor) {
  bool arch_specific = (cc_major == 9 && cc_minor == 0) || cc_major >= 10;
  return fmt::format("sm_{}{}{}", cc_major, cc_minor, arch_specific ? "a" : "");
}

std::string DeviceProperties::native_target() const { return runtime::native_target(cc_major, cc_minor); }

int device_count() {
  int count = 0;
  EVOTUNE_CU(cuDeviceGetCount(&count), "counting devices");
  return count;
}

DeviceProperties query_device(int ordinal) {
  const DriverApi& api = driver();
  int count = device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw NoDeviceError(fmt::format("device {} does not exist ({} CUDA device(s) visible)", ordinal, count));
  }
  DeviceProperties p;
  p.ordinal = ordinal;
  std::string context = fmt::format("device {}", ordinal);
  CUdevice device = 0;
  check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet", context);

  char name[256] = {};
  check(api.cuDeviceGetName(name, sizeof(name), device), "cuDeviceGetName", context);
  p.name = name;
  char bus[64] = {};
  check(api.cuDeviceGetPCIBusId(bus, sizeof(bus), device), "cuDeviceGetPCIBusId", context);
  p.pci_bus_id = bus;

  auto attribute = [&](CUdevice_attribute which, int& out, const char* what) {
    check(api.cuDeviceGetAttribute(&out, which, device), "cuDeviceGetAttribute", fmt::format("{} {}", context, what));
  };
  attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, p.cc_major, "cc major");
  attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, p.cc_minor, "cc minor");
  attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, p.sm_count, "SM count");
  attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, p.max_threads_per_block, "threads/block");
  attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, p.max_threads_per_sm, "threads/SM");
  attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, p.warp_size, "warp size");
  attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, p.shared_bytes_per_block, "smem/block");
  attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, p.shared_bytes_per_block_optin, "smem/block opt-in");
  attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, p.shared_bytes_per_sm, "smem/SM");
  attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, p.registers_per_block, "registers/block");
  attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, p.registers_per_sm, "registers/SM");
  attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, p.l2_bytes, "L2 size");
  attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, p.sm_clock_khz, "SM clock");
  attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, p.memory_clock_khz, "memory clock");
  attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, p.memory_bus_width_bits, "bus width");
  std::size_t total = 0;
  check(api.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem", context);
  p.total_memory_bytes = total;
  check(api.cuDriverGetVersion(&p.driver_version), "cuDriverGetVersion", context);
  return p;
}

std::vector<DeviceProperties> query_all_devices() {
  std::vector<DeviceProperties> all;
  int count = device_count();
  for (int i = 0; i < count; ++i) all.push_back(query_device(i));
  return all;
}

std::string format_cuda_version(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }

nlohmann::json to_json(const DeviceProperties& p) {
  return {
      {"ordinal", p.ordinal},
      {"name", p.name},
      {"pci_bus_id", p.pci_bus_id},
      {"compute_capability", fmt::format("{}.{}", p.cc_major, p.cc_minor)},
      {"native_target", p.native_target()},
      {"sm_count", p.sm_count},
      {"max_threads_per_block", p.max_threads_per_block},
      {"max_threads_per_sm", p.max_threads_per_sm},
      {"warp_size", p.warp_size},
      {"shared_bytes_per_block", p.shared_bytes_per_block},
      {"shared_bytes_per_block_optin", p.shared_bytes_per_block_optin},
      {"shared_bytes_per_sm", p.shared_bytes_per_sm},
      {"registers_per_block", p.registers_per_block},
      {"registers_per_sm", p.registers_per_sm},
      {"l2_bytes", p.l2_bytes},
      {"sm_clock_khz", p.sm_clock_khz},
      {"memory_clock_khz", p.memory_clock_khz},
      {"memory_bus_width_bits", p.memory_bus_width_bits},
      {"theoretical_bandwidth_gbps", p.theoretical_bandwidth_gbps()},
      {"total_memory_bytes", p.total_memory_bytes},
      {"driver_cuda_version", format_cuda_version(p.driver_version)},
  };
}

}  // namespace evotune::runtime
