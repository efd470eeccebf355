#include "harness/family.h"

#include <fmt/format.h>

#include <stdexcept>

namespace evotune::harness {

std::int64_t FamilyProblem::at(std::string_view name) const {
  for (const auto& [n, v] : sizes) {
    if (n == name) return v;
  }
  throw std::out_of_range(fmt::format("problem {} has no size '{}'", text, name));
}

std::string Family::format_config(const Config& config) const { return evotune::format_config(config, parameters()); }

Config Family::parse_config(std::string_view text, const FamilyProblem& problem, const DeviceLimits& limits) const {
  constexpr std::string_view kDefault = "default";
  std::string_view changes = text;
  if (changes.substr(0, kDefault.size()) == kDefault &&
      (changes.size() == kDefault.size() || changes[kDefault.size()] == ',')) {
    changes.remove_prefix(std::min(changes.size(), kDefault.size() + 1));
  }
  return evotune::parse_config(changes, parameters(), default_config(problem, limits));
}

}  // namespace evotune::harness
