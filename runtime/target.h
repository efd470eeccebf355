#pragma once
// A compile target named exactly, as ptxas takes it: sm_80, sm_89, sm_90a, sm_100a ...
// The "a" (architecture-specific) form unlocks instructions that exist only on that chip (wgmma and
// setmaxnreg on sm_90a); CUBIN for it runs only on that exact compute capability.
#include <string>
#include <string_view>

namespace evotune::runtime {

struct Target {
  int major = 0;
  int minor = 0;
  bool arch_specific = false;

  // Throws UsageError for anything not of the form sm_<major><minor>[a].
  static Target parse(std::string_view text);
  std::string name() const;  // "sm_90a"
  int compute_capability() const { return major * 10 + minor; }
  bool operator==(const Target&) const = default;
};

}  // namespace evotune::runtime
