// evotune devices: what the driver reports for every visible GPU.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_properties.h"

namespace evotune::cli {
namespace {

void print_table(const std::vector<runtime::DeviceProperties>& devices) {
  for (const runtime::DeviceProperties& p : devices) {
    auto row = [](std::string_view key, const std::string& value) { fmt::print("  {:<30} {}\n", key, value); };
    fmt::print("device {}: {}\n", p.ordinal, p.name);
    row("PCI bus id", p.pci_bus_id);
    row("compute capability", fmt::format("{}.{} (compile target {})", p.cc_major, p.cc_minor, p.native_target()));
    row("multiprocessors (SMs)", std::to_string(p.sm_count));
    row("threads per block / per SM", fmt::format("{} / {}", p.max_threads_per_block, p.max_threads_per_sm));
    row("shared memory per block", fmt::format("{} KiB ({} KiB opt-in)", p.shared_bytes_per_block / 1024,
                                               p.shared_bytes_per_block_optin / 1024));
    row("shared memory per SM", fmt::format("{} KiB", p.shared_bytes_per_sm / 1024));
    row("registers per block / per SM", fmt::format("{} / {}", p.registers_per_block, p.registers_per_sm));
    row("L2 cache", fmt::format("{:.1f} MiB", p.l2_bytes / 1048576.0));
    row("SM clock", fmt::format("{} MHz", p.sm_clock_khz / 1000));
    row("memory clock", fmt::format("{} MHz", p.memory_clock_khz / 1000));
    row("memory bus width", fmt::format("{} bits", p.memory_bus_width_bits));
    row("theoretical bandwidth", fmt::format("{:.0f} GB/s", p.theoretical_bandwidth_gbps()));
    row("memory", fmt::format("{:.1f} GiB", p.total_memory_bytes / 1073741824.0));
    row("driver supports CUDA", runtime::format_cuda_version(p.driver_version));
  }
}

}  // namespace

void add_devices_command(CLI::App& app, const GlobalOptions&) {
  auto* cmd = app.add_subcommand("devices", "List the CUDA devices and the limits evotune tunes against");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of a table");
  cmd->callback([json] {
    std::vector<runtime::DeviceProperties> devices = runtime::query_all_devices();
    if (devices.empty()) throw NoDeviceError("CUDA driver found but no CUDA device is visible");
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& p : devices) out.push_back(runtime::to_json(p));
      fmt::print("{}\n", out.dump(2));
    } else {
      print_table(devices);
    }
  });
}

}  // namespace evotune::cli
