#pragma once
// What a spec's expressions decide for one problem and config: whether the config holds (restrictions),
// the launch geometry, whether a problem is one the spec takes (requires, buffer sizes, scalars), and the
// deterministic order configs are tried in for a default. One place, used by the spec reader's checks,
// the family's rules, the Bench and the tests alike.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "families/user_kernel/spec.h"
#include "runtime/device_limits.h"
#include "core/config.h"

namespace evotune::user_kernel {

struct LaunchPlan {
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  unsigned shared_bytes = 0;
  bool operator==(const LaunchPlan&) const = default;
};

// The values of spec.scope() for a problem (its sizes in spec order) and a config (tunables; 0 when null).
std::vector<double> scope_values(const Spec& spec, std::span<const std::int64_t> sizes, const Config* config);

// "grid expression 'n / (B - B)' divides by zero": an expression's role and text with what went wrong.
std::string describe_failure(const SpecExpression& e, const std::string& what);

// The expression's value as a positive integer (an element count, a launch size), or why not.
std::variant<std::int64_t, std::string> positive_integer(const SpecExpression& e, std::span<const double> values);

// The first restriction that does not hold ("restriction 'k % BLOCK_K == 0' does not hold"), or one that
// cannot be evaluated (divides by zero); nullopt when all hold.
std::optional<std::string> restriction_failure(const Spec& spec, std::span<const double> values);

// The launch geometry, or why there is none: a size that is not a positive integer, or beyond what CUDA
// launches (block 1024 x 1024 x 64, grid 2^31-1 x 65535 x 65535); with `limits`, threads per block and
// dynamic shared memory beyond the device's.
std::variant<LaunchPlan, std::string> plan_launch(const Spec& spec, std::span<const double> values,
                                                  const DeviceLimits* limits);
// The reference kernel's launch ([check] reference_block, reference_grid, reference_shared_bytes).
std::variant<LaunchPlan, std::string> plan_reference_launch(const Spec& spec, std::span<const double> values);

// Why the spec does not take this problem: a `requires` that fails, a buffer size that is not a positive
// integer, a scalar out of its dtype's range, a metric that does not evaluate; nullopt when it does.
std::optional<std::string> problem_failure(const Spec& spec, std::span<const std::int64_t> sizes);

// The config of each tunable's middle value (index (n-1)/2 of its domain).
Config middle_config(const Spec& spec);
// The first config `accept` takes, in the default order: the middle config, then every config in
// lexicographic order of the domains as listed (the first tunable slowest), at most `limit` of them.
std::optional<Config> first_config(const Spec& spec, const std::function<bool(const Config&)>& accept,
                                   std::size_t limit = std::size_t{1} << 20);

// The element count of a buffer argument for a problem (problem_failure() has passed).
std::int64_t buffer_elements(const Argument& argument, std::span<const double> values);

}  // namespace evotune::user_kernel
