#include "runtime/device_limits.h"

#include "runtime/device_properties.h"

namespace evotune {

DeviceLimits DeviceLimits::from(const runtime::DeviceProperties& p) {
  DeviceLimits l;
  l.compute_capability = p.cc_major * 10 + p.cc_minor;
  l.max_threads_per_block = p.max_threads_per_block;
  l.shared_bytes_per_block_optin = p.shared_bytes_per_block_optin;
  l.registers_per_sm = p.registers_per_sm;
  l.sm_count = p.sm_count;
  l.shared_bytes_per_sm = p.shared_bytes_per_sm;
  l.max_threads_per_sm = p.max_threads_per_sm;
  if (p.l2_bytes > 0) l.l2_bytes = p.l2_bytes;
  return l;
}

DeviceLimits DeviceLimits::for_target(const runtime::Target& target) {
  DeviceLimits l;
  l.compute_capability = target.compute_capability();
  switch (l.compute_capability) {
    case 80:
    case 87:
      l.shared_bytes_per_block_optin = 163 * 1024;
      l.shared_bytes_per_sm = 164 * 1024;
      l.sm_count = 108;
      l.l2_bytes = 40 * 1024 * 1024;
      break;
    case 86:
    case 89:
      l.shared_bytes_per_block_optin = 99 * 1024;
      l.shared_bytes_per_sm = 100 * 1024;
      l.max_threads_per_sm = 1536;
      l.sm_count = 84;
      l.l2_bytes = 6 * 1024 * 1024;
      break;
    default:  // 9.x, 10.x: 227 KiB
      l.shared_bytes_per_block_optin = 227 * 1024;
      l.sm_count = 132;
      break;
  }
  return l;
}

}  // namespace evotune
